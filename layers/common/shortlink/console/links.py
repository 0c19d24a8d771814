"""The key's links: the list and its search, one link's page (its QR code: console.qr_codes), and the forms that
create (one or many), edit, delete and restore them."""

import re
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.api.link_commands import commands_of
from shortlink.commands.links import LinkCommands, LinkWritten
from shortlink.console import audit, forms
from shortlink.console.glances import seven_day_people, sparkline
from shortlink.console.link_window import PAGE_SIZE, WINDOW, window_page
from shortlink.console.pages import see_other
from shortlink.console.plumbing import (
    Refused,
    confirm_first,
    destinations,
    page_of,
    posted_by_session,
    query,
    requested,
    requiring,
    short_link,
    shown,
    stored_key,
    view,
)
from shortlink.console.sessions import Session
from shortlink.console.stats import chosen_range, stats_report
from shortlink.errors import InvalidLinkOption, InvalidUrl, LinkNotFound, RateLimited, ShortlinkError, SlugTaken
from shortlink.links.outlines import ORDERS, OutlineFilter
from shortlink.links.qr_style_choice import chosen_style
from shortlink.links.qr_styles import MAX_LOGO_BYTES, MAX_LOGO_SIDE, MAX_MARGIN, MIN_MARGIN
from shortlink.numbers import NotAWholeNumber, whole_number
from shortlink.people.actors import Actor
from shortlink.schemas.links import MAX_UTM_VALUE_LENGTH, TAG_PATTERN
from shortlink.wiring import link_domains, link_repository, qr_styles

MAX_BULK_LINES = 100

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def listed_page() -> int:
    """The page of a searched or ordered list asked for (`page`, from 1), within the window."""
    given = query("page") or "1"
    try:
        return whole_number(given, "page", minimum=1, maximum=WINDOW // PAGE_SIZE)
    except NotAWholeNumber as error:
        raise Refused(400, str(error)) from None


@router.get("/console")
def links_page() -> Response[Any]:
    current, key = requiring("links:read")
    tag, cursor, text, domain = query("tag"), query("cursor") or None, query("q"), query("domain")
    campaign, order = query("utm_campaign"), query("sort") or "newest"
    if order not in ORDERS:
        raise Refused(400, f"sort is one of {', '.join(ORDERS)}")
    if tag and not re.fullmatch(TAG_PATTERN, tag):
        raise Refused(400, "a tag is 1-32 letters, digits, '_' or '-'")
    if len(campaign) > MAX_UTM_VALUE_LENGTH:
        raise Refused(400, f"a campaign is at most {MAX_UTM_VALUE_LENGTH} characters")
    on_domain = link_domains(key.owner).domain_named(domain) if domain else None
    chosen = (("q", text), ("tag", tag), ("utm_campaign", campaign), ("domain", domain), ("sort", order))
    filters = {name: given for name, given in chosen if given and (name, given) != ("sort", "newest")}
    first_page = f"/console?{urlencode(filters)}" if filters else "/console"
    window = None
    if text or order != "newest":  # over the newest WINDOW links at once
        page = listed_page()
        window = window_page(key, OutlineFilter(text, tag, on_domain, campaign), order, page)
        links, glances, paged = window.links, window.glances, page > 1
        next_page = f"/console?{urlencode({**filters, 'page': page + 1})}" if window.has_next else None
    else:  # newest first, a page at a time however many links there are
        links, next_cursor = link_repository().list_for_owner(
            key.owner, PAGE_SIZE, cursor, tag or None, utm_campaign=campaign or None, domain=on_domain
        )
        glances = seven_day_people([link.key for link in links]) if key.allows("stats:read") else {}
        paged = cursor is not None
        next_page = f"/console?{urlencode({'cursor': next_cursor, **filters})}" if next_cursor else None
    rows = [{**view(link), "glance": sparkline(glances[link.key]) if link.key in glances else None} for link in links]
    unsorted = {name: given for name, given in filters.items() if name != "sort"}
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
        domains=link_domains(key.owner).names(),
        order=order,
        window=window,
        first_page=first_page,
        next_page=next_page,
        paged=paged,
        sorted_by={each: "/console?" + urlencode({**unsorted, "sort": each}) for each in ORDERS},
        changed=query("changed") if re.fullmatch(r"[0-9]{1,2}", query("changed")) else "",  # after a bulk change
    )


def link_form(key: Actor, current: Session, state: forms.FormState, status: int = 200, **context: Any) -> Response[Any]:
    routes = forms.rows(state.values, "route") + forms.SPARE_ROUTES
    variants = forms.rows(state.values, "variant") + forms.SPARE_VARIANTS
    domains = link_domains(key.owner).names()
    return shown(
        "link_form.html", key, current, status, form=state, routes=routes, variants=variants, domains=domains,
        **context,
    )  # fmt: skip


@router.get("/console/links/new")
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


def link_commands(actor: Actor) -> LinkCommands:
    """The link commands of this console request by `actor` (each writes its entry and queues its
    link.* event, as the API's do)."""
    return commands_of(audit.origin(actor), destinations, view)


def create_from(form: forms.Form, commands: LinkCommands) -> LinkWritten:
    url, options = forms.link_options(form)
    domain = link_domains(commands.owner).domain_named(forms.value(form, "domain") or None)
    options = replace(options, domain=domain)
    return commands.create(url, options)


@router.post("/console/links")
def create() -> Response[Any]:
    form, current, key = posted_by_session("links:write")
    try:
        link = create_from(form, link_commands(key)).link
    except forms.FormErrors as error:
        return link_form(key, current, forms.FormState(form, error.errors), 422, editing=None, bulk=None)
    except ShortlinkError as error:
        return link_form(key, current, forms.FormState(form, errors_of(error)), 422, editing=None, bulk=None)
    return see_other(page_of(link, created="1"))


@router.post("/console/links/bulk")
def create_many() -> Response[Any]:
    form, current, key = posted_by_session("links:write")
    lines = [line.strip() for line in forms.value(form, "lines").splitlines() if line.strip()]
    if not 1 <= len(lines) <= MAX_BULK_LINES:
        raise Refused(422, f"paste 1 to {MAX_BULK_LINES} lines, one URL (and an optional title) each")
    results = []
    commands = link_commands(key)
    with commands.together():  # one queue call for the whole batch
        for number, line in enumerate(lines, start=1):
            url, _, title = line.partition(" ")
            item = {"url": [url], "title": [title], "tags": form.get("tags", [""])}
            try:
                created = create_from(item, commands)
            except forms.FormErrors as error:
                results.append({"line": number, "text": line, "error": str(error)})
                continue
            except ShortlinkError as error:
                results.append({"line": number, "text": line, "error": "; ".join(errors_of(error).values())})
                continue
            results.append({"line": number, "text": line, "link": created.view})
    bulk = {"results": results, "created": sum("link" in result for result in results)}
    return link_form(key, current, forms.FormState(), editing=None, bulk=bulk)


@router.get("/console/links/<code>")
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
        history=audit.link_history(key, link),
        qr=chosen_style(qr_styles(), key.owner, link.key),
        margins=range(MIN_MARGIN, MAX_MARGIN + 1),
        logo_limit=f"{MAX_LOGO_BYTES // 1024} KB, {MAX_LOGO_SIDE} pixels a side",
    )


# The edit form shows the link as it is: a write-only key may not read it (as GET /links/{code}).
@router.get("/console/links/<code>/edit")
def edit_page(code: str) -> Response[Any]:
    current, key = requiring("links:write", "links:read")
    link = view(requested(code, key))
    return link_form(key, current, forms.FormState(forms.form_of_link(link)), editing=link, bulk=None)


@router.post("/console/links/<code>")
def edit(code: str) -> Response[Any]:
    form, current, key = posted_by_session("links:write", "links:read")
    stored = requested(code, key)
    link = view(stored)
    try:
        link_commands(key).edit(stored.key, forms.link_changes(form), compared_with=stored)
    except forms.FormErrors as error:
        return link_form(key, current, forms.FormState(form, error.errors), 422, editing=link, bulk=None)
    except ShortlinkError as error:
        if isinstance(error, LinkNotFound):
            raise
        return link_form(key, current, forms.FormState(form, errors_of(error)), 422, editing=link, bulk=None)
    return see_other(page_of(stored))


@router.post("/console/links/<code>/delete")
def delete(code: str) -> Response[Any]:
    form, current, key = posted_by_session("links:write")
    found = requested(code, key)
    question = f"Delete {short_link(found).short_url}? It stops redirecting; you can restore it from the list."
    if (asking := confirm_first(form, key, current, question, "Delete", page_of(found))) is not None:
        return asking
    link_commands(key).delete(stored_key(code, key.owner))
    return see_other("/console")


@router.post("/console/links/<code>/restore")
def restore(code: str) -> Response[Any]:
    _, _, key = posted_by_session("links:write")
    restored = link_commands(key).restore(stored_key(code, key.owner)).link
    return see_other(page_of(restored))
