"""POST /links/import and GET /links/export: a key's links from a file, and all of them out.

An import creates each record through the create path (validation, destination checks, the
key's create allowance) and answers a report; an export reads the key's links page by page.
"""

import json
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Any, Literal

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from shortlink.access.api_keys import ADMIN, LINKS_READ, LINKS_WRITE, STATS_READ
from shortlink.access.rate_limits import CreateAllowance
from shortlink.api.link_views import Moment
from shortlink.api.resolver import (
    MAX_IMPORT_BODY_BYTES,
    ErrorAnswer,
    api_resolver,
    current_api_key,
    describe_validation_errors,
    destination_policy,
    error_answer,
    error_response,
    file_body,
    link_view,
    missing_scope,
    needs,
)
from shortlink.api.responses import ExportedLinks, ImportSummary, answers, content_answer
from shortlink.audit.recording import link_target
from shortlink.clicks.stats import stats_range
from shortlink.entrypoints import audit
from shortlink.errors import ShortlinkError
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.transfer.exports import (
    MAX_EXPORT_LINKS,
    MAX_STATS_EXPORT_LINKS,
    ExportTooLarge,
    links_csv,
    links_json,
    owned_links,
    stats_csv,
)
from shortlink.transfer.formats import TooManyRecords, UnreadableFile, read
from shortlink.transfer.imports import MAX_IMPORT_RECORDS, Importer
from shortlink.wiring import (
    addresses,
    api_key_store,
    audit_recorder,
    audit_trail,
    click_stats,
    code_generator,
    importing_links,
    person_access,
    settings_of,
    short_domains,
    window_counter,
)

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)


def failure_answer(error: ShortlinkError) -> tuple[str, str]:
    answer = error_answer(error) or ErrorAnswer(500, "internal_error", "the link failed unexpectedly")
    if answer.status >= 500:
        logger.exception("record of an import not created")
    return answer.error, answer.message


def invalid_answer(error: ValidationError) -> str:
    return describe_validation_errors(list(error.errors()), location_prefix=0)


@app.post(
    "/links/import",
    summary="Import links from a file (CSV, Bitly, YOURLS, Shlink, Kutt, an export)",
    operation_id="importLinks",
    responses=answers(200, "one result per record: created, skipped or failed", ImportSummary, 413),
    security=needs(LINKS_WRITE),
)
def import_links(
    file_format: Annotated[
        Literal["auto", "csv", "json", "bitly", "yourls", "shlink", "kutt"], Query(alias="format")
    ] = "auto",
) -> Response[Any]:
    """The body is the file as it is (any Content-Type), up to 1 MiB and 500 records."""
    try:
        text = file_body(app.current_event).decode("utf-8")
    except UnicodeDecodeError:
        return error_response(422, "invalid_request", "the file must be UTF-8 text")
    try:
        records = read(text, file_format, app.current_event.headers.get("content-type"), MAX_IMPORT_RECORDS)
    except TooManyRecords:  # found while reading: the rest of the file is not read
        message = (
            f"an import holds at most {MAX_IMPORT_RECORDS} links (this file holds more) and "
            f"{MAX_IMPORT_BODY_BYTES} bytes; python -m tools.operators.import_links sends larger files in parts"
        )
        return error_response(413, "body_too_large", message)
    except UnreadableFile as error:
        return error_response(422, "invalid_request", str(error))
    if not records:
        return error_response(422, "invalid_request", "the file holds no links")
    owner = current_api_key(app).owner  # the account's links
    now = datetime.now(UTC)
    origin = audit.request_origin(app, now)
    # One entry per link, not one per file (each link's page shows where it came from), each
    # written in the transaction that writes its link.
    links = importing_links().recording(
        audit_trail(), lambda link: origin.entry("link.imported", link_target(link), now)
    )
    importer = Importer(
        owner=owner,
        codes=code_generator(),
        links=links,
        now=now,
        policy=destination_policy(app, addresses(), short_domains()),
        allowance=CreateAllowance(owner, settings_of(RateLimitSettings).creates_per_minute, now, window_counter()),
        failure_answer=failure_answer,
        invalid_answer=invalid_answer,
        domains=short_domains(),
    )
    report = importer.run(records).as_json()
    audit_recorder().announce(links.recorded())
    logger.info("links imported", extra={f"links_{key}": report[key] for key in ("created", "skipped", "failed")})
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(report))


ExportFormat = Literal["json", "csv", "stats-csv"]
CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
EXPORT_FILES = {
    "json": ("links.json", content_types.APPLICATION_JSON),
    "csv": ("links.csv", CSV_MEDIA_TYPE),
    "stats-csv": ("clicks.csv", CSV_MEDIA_TYPE),
}


@app.get(
    "/links/export",
    summary="Export all of your links (JSON, CSV) or their daily clicks (stats-csv)",
    operation_id="exportLinks",
    responses=content_answer(
        "the links, or a row per link and day with clicks",
        {"application/json": ExportedLinks, "text/csv": {"type": "string"}},
        413,
    ),
    security=needs(LINKS_READ),
)
def export_links(
    export_format: Annotated[ExportFormat, Query(alias="format")] = "json",
    start: Annotated[
        Moment | None, Query(alias="from", description="stats-csv: inclusive; default 30 days before to")
    ] = None,
    end: Annotated[Moment | None, Query(alias="to", description="stats-csv: exclusive; default now")] = None,
    include: Annotated[
        Literal["password_hash"] | None,
        Query(description="json: the passwords as their hashes (needs the admin scope too)"),
    ] = None,
) -> Response[Any]:
    key = current_api_key(app)
    owner = key.owner  # the account's links
    view_of = partial(link_view, app, addresses=addresses(), domains=short_domains())
    stats = export_format == "stats-csv"
    # What an export carries beyond links:read needs its own scope (docs/api.md, Scopes).
    if stats and not key.allows(STATS_READ):
        return missing_scope("GET /links/export?format=stats-csv", STATS_READ)
    if include is not None and not key.allows(ADMIN):
        return missing_scope("GET /links/export?include=password_hash", ADMIN)
    if include is not None and export_format != "json":
        return error_response(422, "invalid_request", "include: password_hash is exported with format=json only")
    span = stats_range(start, end, "day", datetime.now(UTC)) if stats else None
    try:
        links = owned_links(importing_links(), owner, MAX_STATS_EXPORT_LINKS if stats else MAX_EXPORT_LINKS)
    except ExportTooLarge as error:
        return error_response(413, "export_too_large", str(error))
    if span is not None:
        body = stats_csv(links, span, lambda key, first, last: click_stats().days(key, first, last), view_of)
    else:
        with_hashes = include is not None
        body = links_json(links, view_of, with_hashes) if export_format == "json" else links_csv(links, view_of)
    filename, media_type = EXPORT_FILES[export_format]
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(status_code=200, content_type=media_type, body=body, headers=headers)


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
