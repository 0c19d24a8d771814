"""GET /{code}: the hot path; and POST /{code}, the unlock form of password-protected links.

A cache hit makes no AWS call before the response, and a cached plain link (Link.is_plain) is
answered with the response made when it was cached; a miss makes one GetItem (plain botocore:
pynamodb's import is not paid here, see adapters/dynamodb/link_reader.py). The click and the
invocation's metrics are handed to the dispatcher, whose internal extension sends and emits
them after the response (see shortlink.redirect.click_dispatch), as do follows that found no live link
(orphan visits). Nothing else is imported here: every
import is paid on each cold start a visitor waits for. Logs are the standard library's, which
Lambda writes as JSON (LoggingConfig in template.yaml). Links with rules or a password load
what those need on first use.

The order in which a link's settings apply (the README's "Rules" section):
  unknown or not yet valid → 404; deleted or expired → 410; access rules → 403;
  password → unlock form; max_clicks → 410 once used up; routes pick the destination.
Each refusal's page, status, metric and orphan visit: shortlink.redirect.outcomes.
"""

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from shortlink.config import settings
from shortlink.domains.model import KEY_SEPARATOR
from shortlink.errors import DestinationTooLong, RateLimited, StorageUnavailable
from shortlink.links.model import Availability, Link
from shortlink.redirect.click_dispatch import click_dispatcher
from shortlink.redirect.outcomes import (
    DELETED,
    DENIED,
    EXPIRED,
    NO_SUCH_ADDRESS,
    NOT_FOUND_FILE,
    NOT_YET_VALID,
    PREFETCH_DECLINED,
    TOO_LARGE,
    TOO_LONG,
    UNAVAILABLE,
    UNKNOWN,
    USED_UP,
    WRONG_METHOD,
    Fallback,
    Outcome,
)
from shortlink.redirect.request_hosts import request_key
from shortlink.redirect.responses import redirect_response
from shortlink.wiring import (
    cached_links,
    cached_robots,
    click_budget,
    click_publisher,
    domain_settings,
    host_prefixes,
    load_link_reader,
    visitor_salt_root,
    window_counter,
)

if TYPE_CHECKING:
    from shortlink.links.previews import LinkPreview

logger = logging.getLogger("shortlink.redirect")
load_link_reader()  # botocore at init, where provisioned concurrency pays it
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = click_dispatcher(click_publisher, visitor_salt_root)

FOLLOW_ROUTE = "GET /{code}"
# Link checkers, crawlers and `curl -I`: the answer a GET gets, without its body, its click or a
# follow taken from max_clicks.
CHECK_ROUTE = "HEAD /{code}"
ROBOTS_ROUTE = "GET /robots.txt"
# A short domain's own addresses (shortlink.redirect.domain_pages): its root and its app-link files.
ROOT_ROUTE = "GET /"
WELL_KNOWN_ROUTE = "GET /.well-known/{file}"
# An unlock form carries one password of at most 128 characters (percent-encoded: 3 bytes each).
MAX_FORM_BYTES = 1024
OUTCOME_OF = {Availability.NOT_YET: NOT_YET_VALID, Availability.EXPIRED: EXPIRED, Availability.DELETED: DELETED}


def redirect(event: dict[str, Any], method: str, code: str) -> dict[str, Any]:
    """The answer to a follow of `code` by `method`: its link looked up, the README's rules applied
    in their order (`apply_rules`), and the follow counted unless it was refused or a check."""
    # A browser's speculative fetch is declined before anything is read, counted or taken.
    headers = event.get("headers") or {}
    purpose = headers.get("sec-purpose") or headers.get("purpose") or headers.get("x-moz")
    if purpose is not None and method == "GET" and ("prefetch" in purpose or "prerender" in purpose):
        return refused(PREFETCH_DECLINED, event)
    links = cached_links()  # first: made, it has filled host_prefixes from the settings
    # Without Domains a code is its key: nothing more is read (not even the settings).
    if host_prefixes or KEY_SEPARATOR in code:
        key = request_key(event, code)
        if key is None:  # a host that is none of the stack's domains
            return refused(NO_SUCH_ADDRESS, event)
    else:
        key = code
    try:
        found = links.lookup(key)
    except StorageUnavailable:
        logger.exception("link lookup failed")
        return refused(UNAVAILABLE, event)
    # A plain link (Link.is_plain) followed without a query: what apply_rules would answer, made
    # when it was cached (shortlink.redirect.responses.plain_redirect). HEAD, a link checker's
    # rarer look, takes the rules' walk and counts no click.
    ready = found.prepared
    if ready is not None and method == "GET" and not event.get("rawQueryString"):
        url, answer = ready
    else:
        destination, answer = apply_rules(event, method, key, found.link, method == "HEAD")
        if destination is None or method == "HEAD":
            return answer
        url = destination
    # Counted under the key the link was looked up by (no second `link.key`), with the cache's
    # outcome: Redirects = CacheHits + CacheMisses (metric math on the dashboard).
    dispatcher.record_click(key, event, url, found.link, found.hit)
    return answer


def apply_rules(
    event: dict[str, Any], method: str, key: str, link: Link | None, checking: bool
) -> tuple[str | None, dict[str, Any]]:
    """The destination of a follow of `link` and its answer, the README's rules applied in their
    order; no destination when a rule refused it (the answer is then the refusal's page)."""
    # 1. unknown, or not yet valid: 404; 2. deleted or expired: 410
    if link is None:
        return None, refused(UNKNOWN, event, key, checking)
    availability = link.availability(datetime.now(UTC))
    if availability is not Availability.ACTIVE:
        return None, refused(OUTCOME_OF[availability], event, key, checking, link)
    # 3. access rules: 403
    visitor = None
    if link.rules is not None:
        from shortlink.redirect.visitors import visitor_of

        visitor = visitor_of(event, settings().trust_edge_headers, datetime.now(UTC))
        if link.rules.denies(visitor):
            return None, refused(DENIED, event)
    # 4. password: the unlock form until the right one is posted
    status = link.redirect_type
    if link.password_hash is not None:
        refusal = unlock(event, link, method)
        if refusal is not None:
            return None, refusal
        status = 303  # after a POST: the browser GETs the destination, never re-sends the password
    elif method not in ("GET", "HEAD"):
        return None, WRONG_METHOD.page({"Allow": "GET, HEAD"})
    # 6. routes pick the destination, UTM fields and the visitor's query are merged in (before 5:
    # an address too long takes no follow from the budget)
    url = link.url if link.rules is None or visitor is None else link.rules.destination(visitor, link.code, link.url)
    query = event.get("rawQueryString") if link.forward_query else None
    if query or link.utm is not None:
        from shortlink.links.destinations import destination

        try:
            url = destination(url, link.utm, query or "")
        except DestinationTooLong:
            return None, refused(TOO_LONG, event)
    # 5. max_clicks: one follow taken from the budget, 410 once used up
    if link.max_clicks is not None and not checking:
        try:
            allowed = click_budget().take(link.key)  # the one conditional update such links add
        except StorageUnavailable:
            logger.exception("click budget not updated")
            return None, refused(UNAVAILABLE, event)
        if not allowed:
            return None, refused(USED_UP, event, key, checking, link)
    # 7. the redirect, or the preview card for a link-preview bot; the click is queued after it
    if link.preview is not None:
        from shortlink.rules.user_agents import is_link_preview

        if is_link_preview((event.get("headers") or {}).get("user-agent", "")):
            return url, preview_card(link, link.preview, url)
    return url, redirect_response(link, status, url)


def refused(
    outcome: Outcome, event: dict[str, Any], key: str | None = None, checking: bool = False, link: Link | None = None
) -> dict[str, Any]:
    """The outcome's page (or its fallback redirect), its metric counted and, unless checking, the
    orphan visit of `key` recorded."""
    if outcome.metric is not None:
        dispatcher.count(outcome.metric)
    if outcome.orphan is not None and key is not None and not checking:
        dispatcher.record_orphan(key, outcome.orphan)
    if outcome.fallback is Fallback.EXPIRED_URL and link is not None and link.expired_url is not None:
        return redirect_response(link, 302, link.expired_url)
    if outcome.fallback is Fallback.DOMAIN_NOT_FOUND_URL:
        from shortlink.redirect.domain_pages import fallback_redirect, settings_for

        url = settings_for(event, domain_settings).not_found_url
        if url is not None:
            return fallback_redirect(url)
    return outcome.page()


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
        return refused(NO_SUCH_ADDRESS, event)
    try:
        text = cached_robots().text(prefix.removesuffix(KEY_SEPARATOR))
    except StorageUnavailable:
        logger.exception("crawlable links not read")
        return refused(UNAVAILABLE, event)
    return {"statusCode": 200, "headers": ROBOTS_HEADERS, "body": text}


def domain_address(event: dict[str, Any], route: str) -> dict[str, Any]:
    """A domain's root (its root URL, counted as an orphan visit) or one of its app-link files."""
    from shortlink.redirect.domain_pages import fallback_redirect, settings_for, well_known_file
    from shortlink.redirect.request_hosts import request_domain

    domain = request_domain(event)
    if domain is None:
        return refused(NO_SUCH_ADDRESS, event)
    if route == WELL_KNOWN_ROUTE:
        return well_known_file(event, domain_settings) or NOT_FOUND_FILE.page()
    names = settings().short_domains.names
    dispatcher.record_orphan(f"{domain}/" if names and domain != names[0] else "/", "root")
    url = settings_for(event, domain_settings).root_url
    return fallback_redirect(url) if url is not None else NOT_FOUND_FILE.page()


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
        return WRONG_METHOD.page({"Allow": "GET, HEAD, POST"})
    body = form_body(event)
    if body is None:
        return TOO_LARGE.page()
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
        return refused(UNAVAILABLE, event)
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
        route = event.get("routeKey")
        # API Gateway names the path's code on these routes.
        if route == FOLLOW_ROUTE:
            return redirect(event, "GET", event["pathParameters"]["code"])
        if route == CHECK_ROUTE:
            return {**redirect(event, "HEAD", event["pathParameters"]["code"]), "body": ""}
        if route == ROBOTS_ROUTE:
            return robots_answer(event)
        if route in (ROOT_ROUTE, WELL_KNOWN_ROUTE):
            return domain_address(event, route)
        method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "GET")
        return redirect(event, method, (event.get("pathParameters") or {}).get("code") or "")
    finally:
        dispatcher.invocation_done()
