"""GET /{code}: the hot path.

A cache hit makes no AWS call before the response; a miss makes one GetItem (plain botocore:
pynamodb's import is not paid here, see adapters/dynamodb_reader.py). The click and the
invocation's metrics are handed to the dispatcher, whose internal extension sends and emits
them after the response (see shortlink.click_dispatch). Nothing else is imported here: every
import is paid on each cold start a visitor waits for. Logs are the standard library's, which
Lambda writes as JSON (LoggingConfig in template.yaml).
"""

import logging
from typing import Any

from shortlink.adapters import dynamodb_reader  # noqa: F401 - botocore at init, where provisioned concurrency pays it
from shortlink.click_dispatch import click_dispatcher
from shortlink.errors import StorageUnavailable
from shortlink.services import cached_links, click_publisher

logger = logging.getLogger("shortlink.redirect")
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
        link = links.get(code)
    except StorageUnavailable:
        logger.exception("link lookup failed")
        dispatcher.count("LookupFailures")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    if link is None:
        dispatcher.count("NotFound")
        return page(404, NOT_FOUND_PAGE)
    # Redirects = CacheHits + CacheMisses (metric math on the dashboard).
    dispatcher.count("CacheHits" if links.last_was_hit else "CacheMisses")
    dispatcher.record_click(link.code)
    # no-store: every click must reach us to be counted, and edits must apply at once.
    return {"statusCode": 302, "headers": {"Location": link.url, "Cache-Control": "no-store"}, "body": ""}


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        return redirect(event)
    finally:
        dispatcher.invocation_done()
