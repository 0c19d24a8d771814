"""A key's own links: read, list, edit, delete, restore, and their click totals.

Another key's link answers 404, as an unknown code does: a key cannot learn which codes exist.
"""

import base64
import io
import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BeforeValidator

from shortlink.access.api_keys import LINKS_READ, LINKS_WRITE, STATS_READ
from shortlink.api.link_requests import EditLinkRequest
from shortlink.api.link_views import (
    MAX_UTM_VALUE_LENGTH,
    TAG_PATTERN,
    LinkView,
    Moment,
)
from shortlink.api.resolver import api_resolver, current_api_key, destination_policy, link_view, needs, requested_key
from shortlink.api.responses import BODY_ERRORS, CODE_LINKS, LinkPage, answers, content_answer
from shortlink.api.stats_views import AccountStats, LinkStats, StatsReport
from shortlink.audit.model import Action
from shortlink.audit.recording import edited_fields, link_target
from shortlink.clicks.account_stats import account_stats
from shortlink.clicks.bots import classifier_version
from shortlink.clicks.events import Dimension
from shortlink.clicks.stats import Granularity, dimension_csv, link_report, series_csv, span_days, stats_range
from shortlink.entrypoints import audit
from shortlink.errors import InvalidLinkOption
from shortlink.links.model import Link
from shortlink.links.use_cases import delete_link, edit_link, owned_link, restore_link
from shortlink.numbers import ascii_digits_only
from shortlink.webhooks import emitting as webhook_events
from shortlink.webhooks.model import link_event
from shortlink.wiring import (
    addresses,
    api_key_store,
    click_stats,
    link_repository,
    person_access,
    short_domains,
    webhook_queue,
)

# ?domain= on every route of one link: which domain's link of that code (default: the first).
DomainQuery = Annotated[
    str | None, Query(max_length=260, description="the link's short domain; default: the stack's first")
]

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)


def view(link: Link) -> dict[str, Any]:
    return link_view(app, link, addresses(), short_domains()).model_dump(mode="json")


def stored_key(code: str, domain: str | None) -> str:
    """The key of `code` on the domain `?domain=` names (default: the first)."""
    return requested_key(code, domain, short_domains())


def announced(event_type: str, link: Link, action: Action, changed: tuple[str, ...] = ()) -> dict[str, Any]:
    """The link's view; the write's audit entry recorded, then its webhook event and the entry's
    queued (one SendMessage, after the write)."""
    shown = view(link)
    queued = [link_event(event_type, link.owner, link.tags, shown, datetime.now(UTC))]
    audit.record(app, action, link_target(link), changed, along=queued)
    webhook_events.emit(webhook_queue(), queued)
    return shown


def written(shown: dict[str, Any]) -> Response[Any]:
    """The answer of a write: the link as it now is to a key that may read it, no body to a
    write-only key (a write tells nothing the key may not read)."""
    if not current_api_key(app).allows(LINKS_READ):
        return Response(status_code=204)
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(shown))


# A write's answers: the link (with links:read), or none.
WRITE_ONLY_ANSWER: dict[int, OpenAPIResponse] = {
    204: {"description": "done; no body for a key without links:read", "content": {}}
}


def owner() -> str:
    return current_api_key(app).owner  # the account: each of its keys sees its links


@app.get(
    "/links",
    summary="List your links",
    operation_id="listLinks",
    responses=answers(200, "a page of links, newest first", LinkPage),
    security=needs(LINKS_READ),
)
def list_links(
    limit: Annotated[int, Query(ge=1, le=100), BeforeValidator(ascii_digits_only)] = 25,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
    tag: Annotated[str | None, Query(pattern=TAG_PATTERN)] = None,
    utm_campaign: Annotated[
        str | None, Query(min_length=1, max_length=MAX_UTM_VALUE_LENGTH, description="a campaign's links")
    ] = None,
    domain: Annotated[str | None, Query(max_length=260, description="only this short domain's links")] = None,
) -> dict[str, Any]:
    on_domain = short_domains().domain_named(domain) if domain is not None else None
    links, next_cursor = link_repository().list_for_owner(
        owner(), limit, cursor, tag, utm_campaign=utm_campaign, domain=on_domain
    )
    return {"links": [view(link) for link in links], "next_cursor": next_cursor}


@app.get(
    "/links/<code>",
    summary="Read a link",
    operation_id="getLink",
    responses=answers(200, "the link", LinkView, 404, links=CODE_LINKS),
    security=needs(LINKS_READ),
)
def get_link(code: str, domain: DomainQuery = None) -> dict[str, Any]:
    return view(owned_link(stored_key(code, domain), owner(), link_repository()))


@app.patch(
    "/links/<code>",
    summary="Edit a link",
    operation_id="editLink",
    responses={**answers(200, "the link as edited", LinkView, *BODY_ERRORS, 404), **WRITE_ONLY_ANSWER},
    security=needs(LINKS_WRITE),
)
def patch_link(code: str, request: Annotated[EditLinkRequest, Body()], domain: DomainQuery = None) -> Response[Any]:
    policy = destination_policy(app, addresses(), short_domains())
    key = stored_key(code, domain)
    changes = request.changes()
    edited = edit_link(key, owner(), changes, link_repository(), datetime.now(UTC), policy)
    return written(announced("link.updated", edited, "link.edited", edited_fields(changes)))


@app.delete(
    "/links/<code>",
    summary="Delete a link (soft: it stays readable and can be restored)",
    operation_id="deleteLink",
    responses=answers(204, "deleted", None, 404),
    security=needs(LINKS_WRITE),
)
def remove_link(code: str, domain: DomainQuery = None) -> Response[Any]:
    announced(
        "link.deleted",
        delete_link(stored_key(code, domain), owner(), link_repository(), datetime.now(UTC)),
        "link.deleted",
    )
    return Response(status_code=204)  # no body, so no Content-Type either


@app.post(
    "/links/<code>/restore",
    summary="Undo a delete",
    operation_id="restoreLink",
    responses={**answers(200, "the link", LinkView, 404), **WRITE_ONLY_ANSWER},
    security=needs(LINKS_WRITE),
)
def restore(code: str, domain: DomainQuery = None) -> Response[Any]:
    restored = restore_link(stored_key(code, domain), owner(), link_repository())
    return written(announced("link.restored", restored, "link.restored"))


@app.get(
    "/links/<code>/qr",
    summary="The QR code of the short URL",
    operation_id="linkQrCode",
    responses=content_answer(
        "the QR code", {"image/svg+xml": {"type": "string"}, "image/png": {"type": "string", "format": "binary"}}, 404
    ),
    security=needs(LINKS_READ),
)
def qr_code(
    code: str,
    image_format: Annotated[Literal["svg", "png"], Query(alias="format")] = "svg",
    scale: Annotated[int, Query(ge=1, le=40, description="pixels per module"), BeforeValidator(ascii_digits_only)] = 8,
    domain: DomainQuery = None,
) -> Response[Any]:
    """The QR code of the short URL: SVG by default, PNG with ?format=png."""
    import segno  # only this route draws

    link = owned_link(stored_key(code, domain), owner(), link_repository())
    image = io.BytesIO()
    segno.make(view(link)["short_url"], error="m").save(image, kind=image_format, scale=scale, border=4)
    if image_format == "svg":
        return Response(status_code=200, content_type="image/svg+xml", body=image.getvalue().decode())
    # Already base64 text: the response validation would try to read raw PNG bytes as UTF-8.
    png = Response(status_code=200, content_type="image/png", body=base64.b64encode(image.getvalue()).decode())
    png.base64_encoded = True
    return png


# The stats routes' parameters and answers (a link's, the account's).
StatsFrom = Annotated[Moment | None, Query(alias="from", description="inclusive; default: 30 days before to")]
StatsTo = Annotated[Moment | None, Query(alias="to", description="exclusive; default: now")]
StatsFormat = Annotated[Literal["json", "csv"], Query(alias="format")]


def stats_answers(report: type[StatsReport], *errors: int) -> dict[int, Any]:
    description = (
        "the stats (JSON: clicks, bots, repeat_clicks and unique_visitors, a series, the top values; a link's"
        " with the bot classifier's classifier_version), their series or one dimension's top values (CSV)"
    )
    return content_answer(description, {"application/json": report, "text/csv": {"type": "string"}}, *errors)


@app.get(
    "/links/<code>/stats",
    summary="A link's clicks over time",
    operation_id="linkStats",
    responses=stats_answers(LinkStats, 404),
    security=needs(STATS_READ),
)
def link_stats(
    code: str,
    start: StatsFrom = None,
    end: StatsTo = None,
    granularity: Granularity = "day",
    output: StatsFormat = "json",
    domain: DomainQuery = None,
    dimension: Annotated[
        Dimension | None, Query(description="with format=csv: this dimension's top values instead of the series")
    ] = None,
) -> Response[Any]:
    """Totals (clicks, bots, repeat_clicks, unique_visitors), a time series, the top values of
    each dimension and the bot classifier's version; `?format=csv`: the series
    (`&dimension=campaign`: the top campaigns)."""
    if dimension is not None and output != "csv":
        raise InvalidLinkOption("dimension", "dimension needs format=csv: the JSON holds every dimension")
    span = stats_range(start, end, granularity, datetime.now(UTC))
    link = owned_link(stored_key(code, domain), owner(), link_repository())
    first_day, last_day = span_days(span)
    days = click_stats().days(link.key, first_day, last_day, hourly=span.granularity == "hour")
    # Clicks keep the classification they were counted with: the version says today's.
    report = {**link_report(link.code, days, span), "classifier_version": classifier_version()}
    return stats_response(report, output, f"{link.code}-{dimension or 'stats'}.csv", dimension)


@app.get(
    "/stats",
    summary="Clicks of all your links, or of one tag's",
    operation_id="accountStats",
    responses=stats_answers(AccountStats),
    security=needs(STATS_READ),
)
def all_links_stats(
    start: StatsFrom = None,
    end: StatsTo = None,
    granularity: Granularity = "day",
    output: StatsFormat = "json",
    tag: Annotated[str | None, Query(pattern=TAG_PATTERN, description="only the links with this tag")] = None,
) -> Response[Any]:
    """Totals, a time series, the top values of each dimension and the top links of the calling
    key's account's links (counted as they are clicked: the cost does not grow with their
    number); `?format=csv`: the series."""
    span = stats_range(start, end, granularity, datetime.now(UTC))
    report = account_stats(click_stats(), owner(), tag, span, short_domains().public_name)
    if not current_api_key(app).allows(LINKS_READ):
        report["top_links"] = []  # they name codes, a private link's capability: links:read's to read
    filename = f"tag-{tag}-stats.csv" if tag is not None else "stats.csv"
    return stats_response(report, output, filename)


def stats_response(
    report: dict[str, Any], output: str, filename: str, dimension: Dimension | None = None
) -> Response[Any]:
    if output == "csv":
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        body = series_csv(report) if dimension is None else dimension_csv(report, dimension)
        return Response(status_code=200, content_type="text/csv; charset=utf-8", body=body, headers=headers)
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(report))


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
