"""POST /links/import and GET /links/export: a key's links from a file, and all of them out;
POST /clicks/exports and GET /clicks/exports/{export_id}: the account's raw clicks out of the
click lake (the router of shortlink.api.click_exports).

An import creates each record through the link commands' create (validation, destination checks,
the key's create allowance, a link.created event) and answers a report; an export (the router of
shortlink.api.link_exports) reads the key's links page by page.
"""

import json
from typing import Annotated, Any, Literal

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from shortlink.access.api_keys import LINKS_WRITE
from shortlink.api import click_exports as click_export_routes
from shortlink.api import link_exports as export_routes
from shortlink.api.auth import needs
from shortlink.api.bodies import file_body
from shortlink.api.errors import ErrorAnswer, describe_validation_errors, error_answer
from shortlink.api.link_commands import link_commands
from shortlink.api.requests import api_request
from shortlink.api.resolver import api_resolver
from shortlink.api.responses import ImportSummary, answers
from shortlink.errors import ShortlinkError
from shortlink.transfer.imports import MAX_IMPORT_RECORDS
from shortlink.transfer.uploads import read_upload
from shortlink.wiring import (
    api_key_store,
    audit_trail,
    importing_links,
    link_domains,
    person_access,
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
    content_type = app.current_event.headers.get("content-type")
    records = read_upload(file_body(app.current_event), file_format, content_type, MAX_IMPORT_RECORDS)
    commands = link_commands(api_request(app))
    # One entry per link, not one per file (each link's page shows where it came from), each
    # written in the transaction that writes its link.
    links = importing_links().recording(audit_trail(), commands.imported_entry)
    report = commands.import_records(
        records, links, link_domains(commands.owner), failure_answer, invalid_answer
    ).as_json()
    logger.info("links imported", extra={f"links_{key}": report[key] for key in ("created", "skipped", "failed")})
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(report))


export_routes.include_in(app)
click_export_routes.include_in(app)


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
