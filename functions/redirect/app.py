"""GET /{code}: the hot path; and POST /{code}, the unlock form of password-protected links.

A cache hit makes no AWS call before the response; a miss makes one GetItem (plain botocore:
pynamodb's import is not paid here, see adapters/dynamodb_redirect.py). The click and the
invocation's metrics are handed to the dispatcher, whose internal extension sends and emits
them after the response (see shortlink.click_dispatch), as do follows that found no live link
(orphan visits). Nothing else is imported here: every
import is paid on each cold start a visitor waits for. Logs are the standard library's, which
Lambda writes as JSON (LoggingConfig in template.yaml). Links with rules or a password load
what those need on first use.

The order in which a link's settings apply (the README's "Rules" section):
  unknown or not yet valid → 404; deleted or expired → 410; access rules → 403;
  password → unlock form; max_clicks → 410 once used up; routes pick the destination.
"""

import logging
from datetime import UTC, datetime
from time import monotonic  # the clock services.cached_links() is given
from typing import Any

from shortlink.adapters import dynamodb_redirect  # noqa: F401 - botocore at init, where provisioned concurrency pays it
from shortlink.click_dispatch import click_dispatcher
from shortlink.config import settings
from shortlink.errors import RateLimited, StorageUnavailable
from shortlink.links import Availability, Link
from shortlink.redirect_responses import redirect_response
from shortlink.services import cached_links, click_budget, click_publisher, link_entries, window_counter

logger = logging.getLogger("shortlink.redirect")
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = click_dispatcher(click_publisher)

FOLLOW_ROUTE = "GET /{code}"  # API Gateway's routeKey: method and route in one string
# Link checkers, crawlers and `curl -I`: the answer a GET gets, without its body, its click or a
# follow taken from max_clicks.
CHECK_ROUTE = "HEAD /{code}"
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
DENIED_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Not available</title>"
    "<h1>Not available</h1><p>This short link is not available to you.</p></html>"
)
METHOD_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Method not allowed</title>"
    "<h1>Method not allowed</h1><p>Follow this link with GET.</p></html>"
)
TOO_LARGE_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Too large</title>"
    "<h1>Request too large</h1><p>The form sent more than this page accepts.</p></html>"
)
# An unlock form carries one password of at most 128 characters (percent-encoded: 3 bytes each).
MAX_FORM_BYTES = 1024
UNAVAILABLE_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Try again</title>"
    "<h1>Temporarily unavailable</h1><p>Please try again in a moment.</p></html>"
)


def page(status: int, html: str, extra_headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {"statusCode": status, "headers": {**HTML_HEADERS, **(extra_headers or {})}, "body": html}


def redirect(event: dict[str, Any]) -> dict[str, Any]:
    code = (event.get("pathParameters") or {}).get("code") or ""
    method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "GET")
    checking = method == "HEAD"  # a link checker's look: it counts no click and no orphan visit
    links = cached_links()
    try:
        link = links.get(code)
    except StorageUnavailable:
        logger.exception("link lookup failed")
        dispatcher.count("LookupFailures")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    if link is None:
        dispatcher.count("NotFound")
        record_orphan(code, "unknown", checking)
        return page(404, NOT_FOUND_PAGE)
    if link.valid_from is not None or link.expires_at is not None or link.deleted_at is not None:
        availability = link.availability(datetime.now(UTC))
        if availability is Availability.NOT_YET:  # as if unknown: nothing leaks before the start
            dispatcher.count("NotFound")
            record_orphan(link.code, "not_yet_valid", checking)
            return page(404, NOT_FOUND_PAGE)
        if availability is Availability.EXPIRED:
            dispatcher.count("Expired")
            record_orphan(link.code, "expired", checking)
            return page(410, GONE_PAGE)
        if availability is Availability.DELETED:
            dispatcher.count("Deleted")
            record_orphan(link.code, "deleted", checking)
            return page(410, DELETED_PAGE)
    visitor = None
    if link.rules is not None:
        from shortlink.visitors import visitor_of

        visitor = visitor_of(event, settings().trust_edge_headers, datetime.now(UTC))
        if link.rules.denies(visitor):
            dispatcher.count("RuleDenials")
            return page(403, DENIED_PAGE)
    status = link.redirect_type
    if link.password_hash is not None:
        refusal = unlock(event, link, method)
        if refusal is not None:
            return refusal
        status = 303  # after a POST: the browser GETs the destination, never re-sends the password
    elif method not in ("GET", "HEAD"):
        return page(405, METHOD_PAGE, {"Allow": "GET, HEAD"})
    if link.max_clicks is not None and not checking:
        try:
            allowed = click_budget().take(link.code)  # the one conditional update such links add
        except StorageUnavailable:
            logger.exception("click budget not updated")
            dispatcher.count("LookupFailures")
            return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
        if not allowed:
            dispatcher.count("ClicksExhausted")
            record_orphan(link.code, "used_up", checking)
            return page(410, EXHAUSTED_PAGE)
    if not checking:
        # Redirects = CacheHits + CacheMisses (metric math on the dashboard).
        if links.last_was_hit:
            dispatcher.count("CacheHits")
        else:
            dispatcher.count("CacheMisses")
        dispatcher.record_click(link.code, event, link)
    url = link.url if link.rules is None or visitor is None else link.rules.destination(visitor, link.code, link.url)
    return redirect_response(link, status, url)


def record_orphan(code: str, outcome: str, checking: bool) -> None:
    if not checking:
        dispatcher.record_orphan(code, outcome)


def unlock(event: dict[str, Any], link: Link, method: str) -> dict[str, Any] | None:
    """None once the visitor sent the right password; otherwise the page to answer with: the
    form on GET, the form with an error on a wrong or missing password, 429 past the attempts
    allowed per link and client address."""
    from shortlink.passwords import MAX_LENGTH, password_matches
    from shortlink.unlock_page import HEADERS, unlock_form

    def form(status: int, error: str | None, extra_headers: dict[str, str] | None = None) -> dict[str, Any]:
        return {
            "statusCode": status,
            "headers": {**HEADERS, **(extra_headers or {})},
            "body": unlock_form(error, MAX_LENGTH),
        }

    if method in ("GET", "HEAD"):
        return form(200, None)
    if method != "POST":
        return page(405, METHOD_PAGE, {"Allow": "GET, HEAD, POST"})
    body = form_body(event)
    if body is None:
        return page(413, TOO_LARGE_PAGE)
    password = body.get("password", "")
    if not password:
        return form(400, "Enter the password.")
    from shortlink.rate_limits import take_unlock_attempt
    from shortlink.visitors import client_ip

    client = str(client_ip(event, settings().trust_edge_headers) or "unknown")
    try:
        take_unlock_attempt(
            link.code, client, settings().unlock_attempts_per_window, datetime.now(UTC), window_counter()
        )
    except RateLimited as limited:
        dispatcher.count("UnlockThrottled")
        minutes = -(-limited.retry_after // 60)
        message = f"Too many attempts. Try again in {minutes} minute{'s' if minutes > 1 else ''}."
        return form(429, message, {"Retry-After": str(limited.retry_after)})
    except StorageUnavailable:
        logger.exception("unlock attempt not counted")
        dispatcher.count("LookupFailures")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    if not password_matches(password, link.password_hash or ""):
        dispatcher.count("UnlockFailures")
        return form(403, "Wrong password. Try again.")
    return None


def form_body(event: dict[str, Any]) -> dict[str, str] | None:
    """The fields of a posted form (first value of each); None when it is too large."""
    import base64
    from urllib.parse import parse_qsl

    raw = event.get("body") or ""
    if len(raw) > MAX_FORM_BYTES * 2:
        return None
    data = base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode()
    if len(data) > MAX_FORM_BYTES:
        return None
    fields: dict[str, str] = {}
    for name, value in parse_qsl(data.decode("utf-8", errors="replace"), keep_blank_values=True):
        fields.setdefault(name, value)
    return fields


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        # The hot path, inline because every step shows on a visitor's redirect: a GET of a
        # cached plain link gets the response made when it was cached (services.link_entries,
        # shortlink.redirect_responses). Every other case takes the full walk in `redirect`.
        try:
            route = event["routeKey"]  # API Gateway always sets it (a subscript: cheaper than .get)
        except KeyError:
            route = None
        if route == FOLLOW_ROUTE:  # then pathParameters.code is set too
            code = event["pathParameters"]["code"]
            entry = link_entries.get(code)
            if entry is not None and entry.prepared is not None and entry.fresh_until > monotonic():
                entry.used = True  # spared by the cache's next eviction sweep
                dispatcher.count("CacheHits")
                dispatcher.record_click(code, event, entry.link)
                return entry.prepared  # type: ignore[no-any-return]
        answer = redirect(event)
        return {**answer, "body": ""} if route == CHECK_ROUTE else answer
    finally:
        dispatcher.invocation_done()
