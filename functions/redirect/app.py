"""GET /{code}: the hot path; and POST /{code}, the unlock form of password-protected links.

A cache hit makes no AWS call before the response; a miss makes one GetItem (plain botocore:
pynamodb's import is not paid here, see adapters/dynamodb/redirect.py). The click and the
invocation's metrics are handed to the dispatcher, whose internal extension sends and emits
them after the response (see shortlink.redirect.click_dispatch), as do follows that found no live link
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
from typing import TYPE_CHECKING, Any

from shortlink.adapters.dynamodb import redirect as dynamodb_redirect  # noqa: F401 - botocore at init, where provisioned concurrency pays it
from shortlink.config import settings
from shortlink.domains.model import KEY_SEPARATOR
from shortlink.errors import DestinationTooLong, RateLimited, StorageUnavailable
from shortlink.links.model import Availability, Link
from shortlink.redirect.click_dispatch import click_dispatcher
from shortlink.redirect.request_hosts import request_key
from shortlink.redirect.responses import redirect_response
from shortlink.wiring import (
    cached_links,
    cached_robots,
    click_budget,
    click_publisher,
    host_prefixes,
    link_entries,
    window_counter,
)

if TYPE_CHECKING:
    from shortlink.links.previews import LinkPreview

logger = logging.getLogger("shortlink.redirect")
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = click_dispatcher(click_publisher)

FOLLOW_ROUTE = "GET /{code}"  # API Gateway's routeKey: method and route in one string
# Link checkers, crawlers and `curl -I`: the answer a GET gets, without its body, its click or a
# follow taken from max_clicks.
CHECK_ROUTE = "HEAD /{code}"
ROBOTS_ROUTE = "GET /robots.txt"
# A short domain's own addresses (shortlink.redirect.domain_pages): its root and its app-link files.
ROOT_ROUTE = "GET /"
WELL_KNOWN_ROUTE = "GET /.well-known/{file}"
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
TOO_LONG_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Too long</title>"
    "<h1>Address too long</h1><p>This link cannot carry so many parameters.</p></html>"
)
UNAVAILABLE_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Try again</title>"
    "<h1>Temporarily unavailable</h1><p>Please try again in a moment.</p></html>"
)


def page(status: int, html: str, extra_headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {"statusCode": status, "headers": {**HTML_HEADERS, **(extra_headers or {})}, "body": html}


def redirect(event: dict[str, Any]) -> dict[str, Any]:
    route = event.get("routeKey")
    if route in (ROOT_ROUTE, WELL_KNOWN_ROUTE):
        return domain_address(event, route)
    code = (event.get("pathParameters") or {}).get("code") or ""
    method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "GET")
    checking = method == "HEAD"  # a link checker's look: it counts no click and no orphan visit
    links = cached_links()
    # Without Domains a code is its key: nothing more is read (not even the settings).
    key = request_key(event, code) if host_prefixes or KEY_SEPARATOR in code else code
    if key is None:  # a host that is none of the stack's domains
        dispatcher.count("NotFound")
        return page(404, NOT_FOUND_PAGE)
    try:
        link = links.get(key)
    except StorageUnavailable:
        logger.exception("link lookup failed")
        dispatcher.count("LookupFailures")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    if link is None:
        dispatcher.count("NotFound")
        record_orphan(key, "unknown", checking)
        return not_found(event)
    if link.valid_from is not None or link.expires_at is not None or link.deleted_at is not None:
        availability = link.availability(datetime.now(UTC))
        if availability is Availability.NOT_YET:  # as if unknown: nothing leaks before the start
            dispatcher.count("NotFound")
            record_orphan(link.key, "not_yet_valid", checking)
            return not_found(event)
        if availability is Availability.EXPIRED:
            dispatcher.count("Expired")
            record_orphan(link.key, "expired", checking)
            return gone(link, GONE_PAGE)
        if availability is Availability.DELETED:
            dispatcher.count("Deleted")
            record_orphan(link.key, "deleted", checking)
            return gone(link, DELETED_PAGE)
    visitor = None
    if link.rules is not None:
        from shortlink.redirect.visitors import visitor_of

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
    url = link.url if link.rules is None or visitor is None else link.rules.destination(visitor, link.code, link.url)
    query = event.get("rawQueryString") if link.forward_query else None
    if query or link.utm is not None:
        from shortlink.links.destinations import destination

        try:
            url = destination(url, link.utm, query or "")
        except DestinationTooLong:
            return page(414, TOO_LONG_PAGE)
    if link.max_clicks is not None and not checking:
        try:
            allowed = click_budget().take(link.key)  # the one conditional update such links add
        except StorageUnavailable:
            logger.exception("click budget not updated")
            dispatcher.count("LookupFailures")
            return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
        if not allowed:
            dispatcher.count("ClicksExhausted")
            record_orphan(link.key, "used_up", checking)
            return gone(link, EXHAUSTED_PAGE)
    if not checking:
        # Redirects = CacheHits + CacheMisses (metric math on the dashboard).
        if links.last_was_hit:
            dispatcher.count("CacheHits")
        else:
            dispatcher.count("CacheMisses")
        dispatcher.record_click(link.key, event, url, link)
    if link.preview is not None:
        from shortlink.rules.user_agents import is_link_preview

        if is_link_preview((event.get("headers") or {}).get("user-agent", "")):
            return preview_card(link, link.preview, url)
    return redirect_response(link, status, url)


def gone(link: Link, html: str) -> dict[str, Any]:
    """An expired, deleted or used-up link: 410, or a redirect to the owner's fallback page."""
    if link.expired_url is None:
        return page(410, html)
    return redirect_response(link, 302, link.expired_url)


def preview_card(link: Link, preview: "LinkPreview", url: str) -> dict[str, Any]:
    """What a link-preview bot gets instead of the redirect: the link's card (shortlink.links.previews)."""
    from shortlink.links.previews import HEADERS, preview_page
    from shortlink.redirect.responses import NOINDEX

    robots = None if link.crawlable else "noindex"
    headers = HEADERS if link.crawlable else {**HEADERS, **NOINDEX}
    return {"statusCode": 200, "headers": headers, "body": preview_page(preview, url, robots)}


def robots_answer(event: dict[str, Any]) -> dict[str, Any]:
    """GET /robots.txt: all disallowed but the request's domain's crawlable links (built as
    shortlink.redirect.robots says); 404 on a host that is none of the stack's domains."""
    from shortlink.redirect.request_hosts import key_prefix
    from shortlink.redirect.robots import HEADERS as ROBOTS_HEADERS

    prefix = key_prefix(event, settings().short_domains)
    if prefix is None:
        dispatcher.count("NotFound")
        return page(404, NOT_FOUND_PAGE)
    try:
        text = cached_robots().text(prefix.removesuffix(KEY_SEPARATOR))
    except StorageUnavailable:
        logger.exception("crawlable links not read")
        return page(503, UNAVAILABLE_PAGE, {"Retry-After": "1"})
    return {"statusCode": 200, "headers": ROBOTS_HEADERS, "body": text}


def not_found(event: dict[str, Any]) -> dict[str, Any]:
    """The 404 page, or the domain's not-found URL when it has one (the orphan visit is counted
    all the same)."""
    from shortlink.redirect.domain_pages import fallback_redirect, settings_for

    url = settings_for(event).not_found_url
    return fallback_redirect(url) if url is not None else page(404, NOT_FOUND_PAGE)


def domain_address(event: dict[str, Any], route: str) -> dict[str, Any]:
    """A domain's root (its root URL, counted as an orphan visit) or one of its app-link files."""
    from shortlink.redirect.domain_pages import fallback_redirect, settings_for, well_known_file
    from shortlink.redirect.request_hosts import request_domain

    domain = request_domain(event)
    if domain is None:
        dispatcher.count("NotFound")
        return page(404, NOT_FOUND_PAGE)
    if route == WELL_KNOWN_ROUTE:
        return well_known_file(event) or page(404, NOT_FOUND_PAGE)
    names = settings().short_domains.names
    dispatcher.record_orphan(f"{domain}/" if names and domain != names[0] else "/", "root")
    url = settings_for(event).root_url
    return fallback_redirect(url) if url is not None else page(404, NOT_FOUND_PAGE)


def record_orphan(code: str, outcome: str, checking: bool) -> None:
    if not checking:
        dispatcher.record_orphan(code, outcome)


def unlock(event: dict[str, Any], link: Link, method: str) -> dict[str, Any] | None:
    """None once the visitor sent the right password; otherwise the page to answer with: the
    form on GET, the form with an error on a wrong or missing password, 429 past the attempts
    allowed per link and client address."""
    from shortlink.access.passwords import MAX_LENGTH, password_matches
    from shortlink.redirect.unlock_page import HEADERS, unlock_form

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
    from shortlink.access.rate_limits import take_unlock_attempt
    from shortlink.redirect.visitors import client_ip

    client = str(client_ip(event, settings().trust_edge_headers) or "unknown")
    try:
        take_unlock_attempt(
            link.key, client, settings().unlock_attempts_per_window, datetime.now(UTC), window_counter()
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
        # shortlink.redirect.responses). Every other case takes the full walk in `redirect`.
        try:
            route = event["routeKey"]  # API Gateway always sets it (a subscript: cheaper than .get)
        except KeyError:
            route = None
        if route == FOLLOW_ROUTE:  # then pathParameters.code is set too
            code = event["pathParameters"]["code"]
            # On a stack with Domains, the link of this code on the request's domain (an empty
            # table until the first miss has built the cache, whose entries are empty too).
            if host_prefixes:
                code = request_key(event, code) or ""
            entry = link_entries.get(code)
            # A visitor's query may change the answer (query forwarding): such follows take the walk.
            if (
                entry is not None
                and entry.prepared is not None
                and entry.fresh_until > monotonic()
                and not event["rawQueryString"]
            ):
                entry.used = True  # spared by the cache's next eviction sweep
                dispatcher.count("CacheHits")
                dispatcher.record_click(code, event, entry.prepared["headers"]["Location"], entry.link)
                return entry.prepared  # type: ignore[no-any-return]
        elif route == ROBOTS_ROUTE:
            return robots_answer(event)
        answer = redirect(event)
        return {**answer, "body": ""} if route == CHECK_ROUTE else answer
    finally:
        dispatcher.invocation_done()
