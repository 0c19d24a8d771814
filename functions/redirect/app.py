"""GET /{code}: the hot path.

A cache hit makes no AWS call before the response; a miss makes one GetItem (plain botocore:
pynamodb's import is not paid here, see adapters/dynamodb_redirect.py). The click and the
invocation's metrics are handed to the dispatcher, whose internal extension sends and emits
them after the response (see shortlink.click_dispatch). Nothing else is imported here: every
import is paid on each cold start a visitor waits for. Logs are the standard library's, which
Lambda writes as JSON (LoggingConfig in template.yaml).
"""

import logging
from datetime import UTC, datetime
from typing import Any

from shortlink.adapters import dynamodb_redirect  # noqa: F401 - botocore at init, where provisioned concurrency pays it
from shortlink.click_dispatch import click_dispatcher
from shortlink.errors import StorageUnavailable
from shortlink.links import Availability, Link
from shortlink.services import cached_links, click_budget, click_publisher

logger = logging.getLogger("shortlink.redirect")
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = click_dispatcher(click_publisher)

PERMANENT_REDIRECT_MAX_AGE = 3600
HTML_HEADERS = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}
NOT_FOUND_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Link not found</title>"
    "<h1>Link not found</h1><p>This short link does not exist.</p></html>"
)
GONE_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Link expired</title>"
    "<h1>Link expired</h1><p>This short link has expired.</p></html>"
)
EXHAUSTED_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Link used up</title>"
    "<h1>Link used up</h1><p>This short link has been followed as many times as it allows.</p></html>"
)
DELETED_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Link removed</title>"
    "<h1>Link removed</h1><p>This short link was removed by its owner.</p></html>"
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
    if link.valid_from is not None or link.expires_at is not None or link.deleted_at is not None:
        availability = link.availability(datetime.now(UTC))
        if availability is Availability.NOT_YET:  # as if unknown: nothing leaks before the start
            dispatcher.count("NotFound")
            return page(404, NOT_FOUND_PAGE)
        if availability is Availability.EXPIRED:
            dispatcher.count("Expired")
            return page(410, GONE_PAGE)
        if availability is Availability.DELETED:
            dispatcher.count("Deleted")
            return page(410, DELETED_PAGE)
    if link.max_clicks is not None:
        try:
            allowed = click_budget().take(link.code)  # the one conditional update such links add
        except StorageUnavailable:
            logger.exception("click budget not updated")
            dispatcher.count("LookupFailures")
            return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
        if not allowed:
            dispatcher.count("ClicksExhausted")
            return page(410, EXHAUSTED_PAGE)
    # Redirects = CacheHits + CacheMisses (metric math on the dashboard).
    dispatcher.count("CacheHits" if links.last_was_hit else "CacheMisses")
    dispatcher.record_click(link.code)
    return {
        "statusCode": link.redirect_type,
        "headers": {"Location": link.url, "Cache-Control": cache_control(link)},
        "body": "",
    }


def cache_control(link: Link) -> str:
    """302/307: no-store, so every click reaches us and edits apply at once. 301/308: the owner
    chose a permanent redirect, which browsers and the edge may cache for an hour (never past
    the link's expiry); repeat visits from a cache are not counted."""
    if link.redirect_type in (302, 307):
        return "no-store"
    max_age = PERMANENT_REDIRECT_MAX_AGE
    if link.expires_at is not None:
        max_age = min(max_age, max(0, int((link.expires_at - datetime.now(UTC)).total_seconds())))
    return f"public, max-age={max_age}"


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        return redirect(event)
    finally:
        dispatcher.invocation_done()
