"""GET /{code}: the hot path.

A cache hit makes no AWS call before the response; a miss makes one GetItem. The click is
handed to the dispatcher, which sends it after the response (see shortlink.click_dispatch).
"""

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.click_dispatch import click_dispatcher
from shortlink.clicks import ClickEvent
from shortlink.errors import LinkNotFound, StorageUnavailable
from shortlink.links import followable_link
from shortlink.services import cached_links, click_publisher

logger = Logger(service="shortlink-redirect")
metrics = Metrics(service="redirect")
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = click_dispatcher(click_publisher)

HTML_HEADERS = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}
NOT_FOUND_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Link not found</title>"
    "<h1>Link not found</h1><p>This short link does not exist.</p></html>"
)
UNAVAILABLE_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Try again</title>"
    "<h1>Temporarily unavailable</h1><p>Please try again in a moment.</p></html>"
)


def page(status: int, html: str, extra_headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {"statusCode": status, "headers": {**HTML_HEADERS, **(extra_headers or {})}, "body": html}


def redirect(event: dict[str, Any]) -> dict[str, Any]:
    code = (event.get("pathParameters") or {}).get("code") or ""
    links = cached_links()
    try:
        link = followable_link(code, links)
    except LinkNotFound:
        metrics.add_metric(name="NotFound", unit=MetricUnit.Count, value=1)
        return page(404, NOT_FOUND_PAGE)
    except StorageUnavailable:
        logger.exception("link lookup failed")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    metrics.add_metric(name="CacheHits" if links.last_was_hit else "CacheMisses", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="Redirects", unit=MetricUnit.Count, value=1)
    dispatcher.submit(ClickEvent(code=link.code, at=datetime.now(UTC)))
    # no-store: every click must reach us to be counted, and edits must apply at once.
    return {"statusCode": 302, "headers": {"Location": link.url, "Cache-Control": "no-store"}, "body": ""}


@metrics.log_metrics
@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return redirect(event)
    finally:
        dispatcher.invocation_done()
