"""GET /{code}: the hot path. One GetItem, a 302, and a click queued for counting.

Deliberately free of the Powertools resolver and Logger: every import here is paid on
every cold start a visitor waits for.
"""

import logging
from datetime import UTC, datetime
from typing import Any

from shortlink.clicks import ClickEvent
from shortlink.errors import LinkNotFound, StorageUnavailable
from shortlink.links import followable_link
from shortlink.services import click_publisher, link_repository

logger = logging.getLogger("shortlink.redirect")
logger.setLevel(logging.INFO)

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


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    code = (event.get("pathParameters") or {}).get("code") or ""
    try:
        link = followable_link(code, link_repository())
    except LinkNotFound:
        return page(404, NOT_FOUND_PAGE)
    except StorageUnavailable:
        logger.exception("link lookup failed")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    try:
        click_publisher().publish(ClickEvent(code=link.code, at=datetime.now(UTC)))
    except StorageUnavailable:
        # A lost click must never cost the visitor the redirect.
        logger.exception("click not queued", extra={"code": link.code})
    # no-store: every click must reach us to be counted, and edits must apply at once.
    return {"statusCode": 302, "headers": {"Location": link.url, "Cache-Control": "no-store"}, "body": ""}
