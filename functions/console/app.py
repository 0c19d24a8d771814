"""The web console under /console: sign in with an API key, then manage that key's links and
read their stats, on server-rendered pages. It calls the domain code directly, as the API's
functions do; the API key itself never reaches the browser (see shortlink.console.sessions)."""

import contextlib
import io
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, urlencode

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.access.api_keys import ADMIN, ApiKey, hash_api_key, issue_account_key
from shortlink.access.rate_limits import CreateAllowance, take_sign_in_attempt
from shortlink.api.key_views import CreatedKey, KeyView
from shortlink.api.link_views import MAX_UTM_VALUE_LENGTH, TAG_PATTERN
from shortlink.api.resolver import destination_policy, link_view, requested_key
from shortlink.clicks.account_stats import account_stats
from shortlink.clicks.stats import Granularity, link_report, series_csv, span_days, stats_range
from shortlink.config import settings
from shortlink.console import forms
from shortlink.console.key_form import key_request
from shortlink.console.pages import ended_session_cookie, link_path, page, see_other, session_cookie
from shortlink.console.sessions import (
    Session,
    cookie_value,
    is_current,
    is_same_origin,
    issue_session,
    read_session,
)
from shortlink.errors import (
    ApiKeyNotFound,
    InvalidApiKeyOption,
    InvalidLinkOption,
    InvalidUrl,
    LinkNotFound,
    RateLimited,
    ScopeNotGrantable,
    ShortlinkError,
    SlugTaken,
)
from shortlink.links.model import Link
from shortlink.links.use_cases import create_link, delete_link, edit_link, owned_link, restore_link
from shortlink.redirect.edge import came_through_edge, request_headers
from shortlink.redirect.request_hosts import EDGE_HOST_HEADER
from shortlink.redirect.visitors import client_ip
from shortlink.wiring import (
    api_key_store,
    click_stats,
    code_generator,
    console_session_secret,
    link_repository,
    window_counter,
)

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
MAX_FORM_BYTES = 64 * 1024
MAX_FORM_FIELDS = 1000
PAGE_SIZE = 25
# A title search reads at most this many of the key's newest links.
SEARCH_LIMIT = 500
MAX_BULK_LINES = 100
RANGES = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30), "90d": timedelta(days=90)}
SIGN_IN = "/console/sign-in"
SCOPE_MEANINGS = (
    ("links:read", "see links and their settings"),
    ("links:write", "create, edit, delete and restore links"),
    ("stats:read", "read clicks and analytics"),
    ("admin", "manage this account's keys and webhooks"),
)

logger = Logger()
app = APIGatewayHttpResolver()


class SignInNeeded(Exception):
    """No valid session: the browser goes to the sign-in page."""


class Refused(Exception):
    """A request the console answers with an error page (its status and message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def now() -> datetime:
    return datetime.now(UTC)


def session() -> tuple[Session, ApiKey]:
    """This request's session and its key, which must still be active."""
    found = read_session(cookie_value(app.current_event.cookies or []), now(), console_session_secret())
    key = api_key_store().find_by_hash(found.key_hash) if found else None
    if found is None or key is None or not is_current(found, key, now()):
        raise SignInNeeded
    return found, key


def requiring(*scopes: str) -> tuple[Session, ApiKey]:
    current, key = session()
    for scope in scopes:
        if not key.allows(scope):
            raise Refused(403, f"this API key lacks the {scope} scope")
    return current, key


def browser_host() -> str | None:
    """The host the browser sent the request to: Host, but behind the edge (which replaces Host
    with the API's own) the viewer's host it names, or None where it names none (one domain)."""
    headers = request_headers(app.current_event.raw_event)
    if came_through_edge(headers, settings().trust_edge_headers):
        return headers.get(EDGE_HOST_HEADER) or None
    return headers.get("host", "")


def posted_form() -> forms.Form:
    """The form of a state-changing request, refused unless it comes from the console's own
    pages: the browser's Origin (a cross-site form or fetch carries another one)."""
    event = app.current_event
    if not is_same_origin(event.headers.get("origin"), browser_host(), event.headers.get("sec-fetch-site")):
        raise Refused(403, "this request did not come from the console's own page")
    try:
        body = event.decoded_body or ""
    except ValueError:  # base64 of bytes that are not UTF-8 (UnicodeDecodeError is a ValueError)
        raise Refused(400, "the form must be UTF-8 text") from None
    if len(body) > MAX_FORM_BYTES:
        raise Refused(413, f"the form must be at most {MAX_FORM_BYTES} bytes")
    try:
        return parse_qs(body, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
    except ValueError:  # parse_qs's own limit
        raise Refused(413, f"the form must have at most {MAX_FORM_FIELDS} fields") from None


def posted_by_session(*scopes: str) -> tuple[forms.Form, Session, ApiKey]:
    """A state-changing request of a signed-in key (with `scopes`), carrying its session's CSRF token."""
    form = posted_form()
    current, key = requiring(*scopes)
    if not current.accepts_csrf(forms.value(form, "csrf"), console_session_secret()):
        raise Refused(403, "the form's security token is missing or stale: reload the page and retry")
    return form, current, key


def shown(template: str, key: ApiKey, current: Session, status: int = 200, **context: Any) -> Response[Any]:
    """A page of a signed-in key: it knows the key (for what to offer) and the CSRF token."""
    token = current.csrf_token(console_session_secret())
    return page(template, status, key=key, csrf=token, **context)


def view(link: Link) -> dict[str, Any]:
    return link_view(app, link).model_dump(mode="json")


def query(name: str) -> str:
    return ((app.current_event.query_string_parameters or {}).get(name) or "").strip()


def stored_key(code: str) -> str:
    """The key of `code` on the domain the page's `?domain=` names (default: the first), as the
    API's routes of one link name it."""
    return requested_key(code, query("domain") or None)


def requested(code: str, key: ApiKey) -> Link:
    return owned_link(stored_key(code), key.owner, link_repository())


def page_of(link: Link, **query: str) -> str:
    return link_path(link.code, settings().short_domains.public_name(link.domain), **query)


@app.get("/console/sign-in")
def sign_in_page() -> Response[Any]:
    return page("sign_in.html", error=None)


@app.post("/console/sign-in")
def sign_in() -> Response[Any]:
    form = posted_form()
    # The viewer's address (behind the edge, CloudFront-Viewer-Address; never the edge's own).
    client = client_ip(app.current_event.raw_event, settings().trust_edge_headers)
    take_sign_in_attempt(str(client or "unknown"), settings().sign_in_attempts_per_window, now(), window_counter())
    plaintext = forms.value(form, "api_key")
    key_hash = hash_api_key(plaintext)
    key = api_key_store().find_by_hash(key_hash) if 0 < len(plaintext) <= 128 else None
    if key is None or key.state(now()) != "active":
        return page("sign_in.html", 401, error="This API key is not valid (or was revoked).")
    _, cookie = issue_session(key_hash, now(), console_session_secret(), key.session_generation, key.expires_at)
    logger.info("console sign-in", extra={"key_id": key.key_id})
    return see_other("/console", [session_cookie(cookie)])


@app.post("/console/sign-out")
def sign_out() -> Response[Any]:
    """Ends the session on the server too: its cookie, kept or copied, is refused from now on."""
    _, current, key = posted_by_session()
    api_key_store().end_sessions(current.key_hash)
    logger.info("console sign-out", extra={"key_id": key.key_id})
    return see_other(SIGN_IN, [ended_session_cookie()])


def clicks_last_7_days(link: Link) -> int:
    return int(stats_report(link, "day", now() - RANGES["7d"], None)["clicks"])


def found_links(owner: str, text: str) -> list[Link]:
    """The key's link with this code, and its links whose title holds `text` (any case)."""
    needle = text.casefold()
    found = []
    with contextlib.suppress(LinkNotFound):
        found.append(owned_link(text, owner, link_repository()))
    links, cursor = link_repository().list_for_owner(owner, 100, None, None)
    read = links
    while cursor and len(read) < SEARCH_LIMIT:
        links, cursor = link_repository().list_for_owner(owner, 100, cursor, None)
        read += links
    found.extend(link for link in read if needle in (link.title or "").casefold() and link.code != text)
    return found


def passes_filters(link: Link, tag: str, on_domain: str | None, campaign: str) -> bool:
    """Whether a link a search found is one the list's filters keep (as list_for_owner filters)."""
    in_campaign = not campaign or (link.utm is not None and link.utm.campaign == campaign)
    return (not tag or tag in link.tags) and on_domain in (None, link.domain) and in_campaign


@app.get("/console")
def links_page() -> Response[Any]:
    current, key = requiring("links:read")
    tag, cursor, text, domain = query("tag"), query("cursor") or None, query("q"), query("domain")
    campaign = query("utm_campaign")
    if tag and not re.fullmatch(TAG_PATTERN, tag):
        raise Refused(400, "a tag is 1-32 letters, digits, '_' or '-'")
    if len(campaign) > MAX_UTM_VALUE_LENGTH:
        raise Refused(400, f"a campaign is at most {MAX_UTM_VALUE_LENGTH} characters")
    on_domain = settings().short_domains.domain_named(domain) if domain else None
    if text:
        found = found_links(key.owner, text)
        links = [link for link in found if passes_filters(link, tag, on_domain, campaign)]
        next_cursor = None
    else:
        links, next_cursor = link_repository().list_for_owner(
            key.owner, PAGE_SIZE, cursor, tag or None, utm_campaign=campaign or None, domain=on_domain
        )
    counted = key.allows("stats:read")
    rows = [{**view(link), "clicks_7d": clicks_last_7_days(link) if counted else None} for link in links]
    filters = {name: given for name, given in (("tag", tag), ("utm_campaign", campaign), ("domain", domain)) if given}
    next_page = f"/console?{urlencode({'cursor': next_cursor, **filters})}" if next_cursor else None
    return shown(
        "links.html",
        key,
        current,
        active=[row for row in rows if row["deleted_at"] is None],
        deleted=[row for row in rows if row["deleted_at"] is not None],
        tag=tag,
        text=text,
        campaign=campaign,
        domain=domain,
        domains=settings().short_domains.names,
        first_page=f"/console?{urlencode(filters)}" if filters else "/console",
        next_page=next_page,
        paged=cursor is not None,
    )


def link_form(
    key: ApiKey, current: Session, state: forms.FormState, status: int = 200, **context: Any
) -> Response[Any]:
    routes = forms.rows(state.values, "route") + forms.SPARE_ROUTES
    variants = forms.rows(state.values, "variant") + forms.SPARE_VARIANTS
    domains = settings().short_domains.names
    return shown(
        "link_form.html", key, current, status, form=state, routes=routes, variants=variants, domains=domains,
        **context,
    )  # fmt: skip


@app.get("/console/links/new")
def new_link_page() -> Response[Any]:
    current, key = requiring("links:write")
    return link_form(key, current, forms.FormState(), editing=None, bulk=None)


def errors_of(error: ShortlinkError) -> dict[str, str]:
    """A refusal of the domain at the field it names."""
    match error:
        case InvalidLinkOption():
            return {forms.field_of(error.field): str(error)}
        case InvalidUrl():
            return {"url": f"url: {error}"}
        case SlugTaken():
            return {"slug": f"slug {error} (or one that reads the same) is taken"}
        case RateLimited():
            return {"form": str(error)}
    raise error


def create_from(form: forms.Form, owner: str) -> Link:
    url, options = forms.link_options(form)
    options = replace(options, domain=settings().short_domains.domain_named(forms.value(form, "domain") or None))
    allowance = CreateAllowance(owner, settings().create_rate_limit_per_minute, now(), window_counter())
    return create_link(
        url, owner, code_generator(), link_repository(), now(), options, destination_policy(app), allowance
    )


@app.post("/console/links")
def create() -> Response[Any]:
    form, current, key = posted_by_session("links:write")
    try:
        link = create_from(form, key.owner)
    except forms.FormErrors as error:
        return link_form(key, current, forms.FormState(form, error.errors), 422, editing=None, bulk=None)
    except ShortlinkError as error:
        return link_form(key, current, forms.FormState(form, errors_of(error)), 422, editing=None, bulk=None)
    return see_other(page_of(link, created="1"))


@app.post("/console/links/bulk")
def create_many() -> Response[Any]:
    form, current, key = posted_by_session("links:write")
    lines = [line.strip() for line in forms.value(form, "lines").splitlines() if line.strip()]
    if not 1 <= len(lines) <= MAX_BULK_LINES:
        raise Refused(422, f"paste 1 to {MAX_BULK_LINES} lines, one URL (and an optional title) each")
    results = []
    for number, line in enumerate(lines, start=1):
        url, _, title = line.partition(" ")
        item = {"url": [url], "title": [title], "tags": form.get("tags", [""])}
        try:
            results.append({"line": number, "text": line, "link": view(create_from(item, key.owner))})
        except forms.FormErrors as error:
            results.append({"line": number, "text": line, "error": str(error)})
        except ShortlinkError as error:
            results.append({"line": number, "text": line, "error": "; ".join(errors_of(error).values())})
    bulk = {"results": results, "created": sum("link" in result for result in results)}
    return link_form(key, current, forms.FormState(), editing=None, bulk=bulk)


def chosen_range() -> tuple[str, Granularity, datetime | None, datetime | None]:
    """The stats range the page asks for: a preset, or custom from/to (UTC, as the page's
    script sends them)."""
    preset = query("range") or "7d"
    granularity = query("granularity") or ("hour" if preset == "24h" else "day")
    if granularity not in ("hour", "day"):
        raise Refused(400, "granularity is hour or day")
    if preset in RANGES:
        return preset, cast(Granularity, granularity), now() - RANGES[preset], None
    if preset != "custom":
        raise Refused(400, f"range is one of {', '.join(RANGES)} or custom")
    try:
        moments = [datetime.fromisoformat(query(name) or f"{query(name + '_local')}Z") for name in ("from", "to")]
    except ValueError:
        raise Refused(400, "from and to are date-times, such as 2026-11-01T00:00Z") from None
    return preset, cast(Granularity, granularity), moments[0], moments[1]


def stats_report(link: Link, granularity: Granularity, start: datetime | None, end: datetime | None) -> dict[str, Any]:
    """A link's stats over the range, as the API's stats route reports them (read by its key)."""
    span = stats_range(start, end, granularity, now())
    first_day, last_day = span_days(span)
    days = click_stats().days(link.key, first_day, last_day, hourly=span.granularity == "hour")
    return link_report(link.code, days, span)


@app.get("/console/links/<code>")
def link_page(code: str) -> Response[Any]:
    current, key = requiring("links:read")
    link = requested(code, key)
    preset, granularity, start, end = chosen_range()
    report, range_error = None, None
    if key.allows("stats:read"):
        try:
            report = stats_report(link, granularity, start, end)
        except InvalidLinkOption as error:
            range_error = str(error)
    return shown(
        "link.html",
        key,
        current,
        422 if range_error else 200,
        link=view(link),
        report=report,
        range_error=range_error,
        preset=preset,
        granularity=granularity,
        stats_query={"range": preset, "granularity": granularity, "from": query("from"), "to": query("to")},
        created=query("created"),
    )


@app.get("/console/links/<code>/stats.csv")
def link_stats_csv(code: str) -> Response[Any]:
    _, key = requiring("stats:read")
    link = requested(code, key)
    _, granularity, start, end = chosen_range()
    report = stats_report(link, granularity, start, end)
    headers = {"Content-Disposition": f'attachment; filename="{link.code}-stats.csv"', "Cache-Control": "no-store"}
    return Response(200, "text/csv; charset=utf-8", series_csv(report), headers=headers)


@app.get("/console/links/<code>/qr.<image_format>")
def qr_code(code: str, image_format: str) -> Response[Any]:
    import segno  # only this route draws

    _, key = requiring("links:read")
    if image_format not in ("svg", "png"):
        raise Refused(404, "a QR code is an .svg or a .png")
    link = requested(code, key)
    image = io.BytesIO()
    segno.make(link_view(app, link).short_url, error="m").save(image, kind=image_format, scale=8, border=4)
    headers = {"Content-Disposition": f'attachment; filename="{link.code}-qr.{image_format}"'}
    if query("download") != "1":
        headers = {}
    if image_format == "svg":
        return Response(
            200, "image/svg+xml", image.getvalue().decode(), headers={**headers, "Cache-Control": "no-store"}
        )
    return Response(200, "image/png", image.getvalue(), headers={**headers, "Cache-Control": "no-store"})


# The edit form shows the link as it is: a write-only key may not read it (as GET /links/{code}).
@app.get("/console/links/<code>/edit")
def edit_page(code: str) -> Response[Any]:
    current, key = requiring("links:write", "links:read")
    link = view(requested(code, key))
    return link_form(key, current, forms.FormState(forms.form_of_link(link)), editing=link, bulk=None)


@app.post("/console/links/<code>")
def edit(code: str) -> Response[Any]:
    form, current, key = posted_by_session("links:write", "links:read")
    stored = requested(code, key)
    link = view(stored)
    try:
        changes = forms.link_changes(form)
        edit_link(stored.key, key.owner, changes, link_repository(), now(), destination_policy(app))
    except forms.FormErrors as error:
        return link_form(key, current, forms.FormState(form, error.errors), 422, editing=link, bulk=None)
    except ShortlinkError as error:
        if isinstance(error, LinkNotFound):
            raise
        return link_form(key, current, forms.FormState(form, errors_of(error)), 422, editing=link, bulk=None)
    return see_other(page_of(stored))


@app.post("/console/links/<code>/delete")
def delete(code: str) -> Response[Any]:
    _, _, key = posted_by_session("links:write")
    delete_link(stored_key(code), key.owner, link_repository(), now())
    return see_other("/console")


@app.post("/console/links/<code>/restore")
def restore(code: str) -> Response[Any]:
    _, _, key = posted_by_session("links:write")
    restored = restore_link(stored_key(code), key.owner, link_repository())
    return see_other(page_of(restored))


def chosen_tag() -> str | None:
    tag = query("tag")
    if tag and not re.fullmatch(TAG_PATTERN, tag):
        raise Refused(400, "a tag is 1-32 letters, digits, '_' or '-'")
    return tag or None


def overview_report(
    owner: str, tag: str | None, granularity: Granularity, start: datetime | None, end: datetime | None
) -> dict[str, Any]:
    """The account's (or a tag's) stats over the range, as `GET /stats` reports them."""
    span = stats_range(start, end, granularity, now())
    return account_stats(click_stats(), owner, tag, span, settings().short_domains.public_name)


def overview_of(key: ApiKey, report: dict[str, Any]) -> dict[str, Any]:
    """The overview a key may read: the top links name codes, which need links:read (as GET /stats)."""
    return report if key.allows("links:read") else {**report, "top_links": []}


@app.get("/console/overview")
def overview() -> Response[Any]:
    """The account's clicks: totals, the series, its top links and each dimension's top values."""
    current, key = requiring("stats:read")
    tag = chosen_tag()
    preset, granularity, start, end = chosen_range()
    report, range_error = None, None
    try:
        report = overview_of(key, overview_report(key.owner, tag, granularity, start, end))
    except InvalidLinkOption as error:
        range_error = str(error)
    chosen = {"range": preset, "granularity": granularity, "from": query("from"), "to": query("to")}
    return shown(
        "overview.html",
        key,
        current,
        422 if range_error else 200,
        report=report,
        range_error=range_error,
        tag=tag or "",
        preset=preset,
        granularity=granularity,
        stats_query=urlencode({**chosen, **({"tag": tag} if tag else {})}),
        untagged_query=urlencode(chosen),
        default_domain=settings().short_domains.public_name(""),  # its links' pages need no ?domain=
    )


@app.get("/console/overview/stats.csv")
def overview_csv() -> Response[Any]:
    _, key = requiring("stats:read")
    tag = chosen_tag()
    _, granularity, start, end = chosen_range()
    report = overview_report(key.owner, tag, granularity, start, end)
    filename = f"tag-{tag}-stats.csv" if tag else "stats.csv"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"}
    return Response(200, "text/csv; charset=utf-8", series_csv(report), headers=headers)


def keys_page(
    key: ApiKey, current: Session, state: forms.FormState, status: int = 200, created: CreatedKey | None = None
) -> Response[Any]:
    listed = [KeyView.of(each, now()).model_dump(mode="json") for each in api_key_store().list_keys(owner=key.owner)]
    chosen = state.values.get("scopes", []) if state.values else ["links:read"]
    return shown(
        "keys.html", key, current, status, keys=listed, form=state, created=created,
        scopes=SCOPE_MEANINGS, chosen_scopes=chosen,
    )  # fmt: skip


@app.get("/console/keys")
def keys() -> Response[Any]:
    current, key = requiring(ADMIN)
    return keys_page(key, current, forms.FormState())


@app.post("/console/keys")
def create_key() -> Response[Any]:
    """A new key of the account, as `POST /keys` makes it; its clear text is on this page only."""
    form, current, key = posted_by_session(ADMIN)
    try:
        request = key_request(form)
        scopes = frozenset(request.scopes)
        made, plaintext = issue_account_key(api_key_store(), key, request.name, scopes, request.expires_at, now())
    except forms.FormErrors as error:
        return keys_page(key, current, forms.FormState(form, error.errors), 422)
    except InvalidApiKeyOption as error:
        return keys_page(key, current, forms.FormState(form, {error.field: str(error)}), 422)
    except ScopeNotGrantable as error:
        message = f"scopes: this key cannot grant {error.scope}, which it lacks"
        return keys_page(key, current, forms.FormState(form, {"scopes": message}), 422)
    logger.info("API key created", extra={"key_id": made.key_id, "by": key.key_id, "scopes": sorted(scopes)})
    created = CreatedKey(**KeyView.of(made, now()).model_dump(), key=plaintext)
    return keys_page(key, current, forms.FormState(), 201, created)


@app.post("/console/keys/<key_id>/revoke")
def revoke_key(key_id: str) -> Response[Any]:
    _, _, key = posted_by_session(ADMIN)
    if not api_key_store().revoke(key_id, owner=key.owner):
        raise ApiKeyNotFound(key_id)
    logger.info("API key revoked", extra={"key_id": key_id, "by": key.key_id})
    return see_other("/console/keys")


@app.get("/console/static/<name>")
def static(name: str) -> Response[Any]:
    asset = STATIC / name
    if name not in {path.name for path in STATIC.iterdir()} or asset.suffix not in STATIC_TYPES:
        raise Refused(404, "no such file")
    # Named by their contents' version (uPlot's) or changed with the console: an hour is safe.
    headers = {"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"}
    return Response(200, STATIC_TYPES[asset.suffix], asset.read_text(), headers=headers, compress=True)


@app.exception_handler(SignInNeeded)
def sign_in_needed(_: SignInNeeded) -> Response[Any]:
    return see_other(SIGN_IN, [ended_session_cookie()])


@app.exception_handler(Refused)
def refused(error: Refused) -> Response[Any]:
    return page("error.html", error.status, message=str(error))


@app.exception_handler(RateLimited)
def rate_limited(error: RateLimited) -> Response[Any]:
    answer = page("error.html", 429, message=f"Too many attempts: wait {error.retry_after} s and try again.")
    answer.headers["Retry-After"] = str(error.retry_after)
    return answer


@app.exception_handler(InvalidLinkOption)
def invalid_option(error: InvalidLinkOption) -> Response[Any]:
    return page("error.html", 400, message=str(error))


@app.exception_handler(LinkNotFound)
def link_not_found(error: LinkNotFound) -> Response[Any]:
    return page("error.html", 404, message="No such link among this key's links.")


@app.exception_handler(ApiKeyNotFound)
def key_not_found(_: ApiKeyNotFound) -> Response[Any]:
    return page("error.html", 404, message="No such key in this account.")


@app.exception_handler(ShortlinkError)
def unavailable(error: ShortlinkError) -> Response[Any]:
    logger.error("console request failed: %s", error, exc_info=error)
    return page("error.html", 503, message="The store is busy: retry shortly.")


@app.not_found
def no_such_page(_: Exception) -> Response[Any]:
    return page("error.html", 404, message="No such page in the console.")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
