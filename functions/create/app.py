"""POST /links and POST /links/bulk: create short links for the caller's account."""

import json
from typing import Annotated, Any

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from shortlink.access.api_keys import LINKS_WRITE
from shortlink.api.auth import needs
from shortlink.api.errors import ErrorAnswer, describe_validation_errors, error_answer
from shortlink.api.idempotency import IDEMPOTENCY, once_per_key
from shortlink.api.link_commands import link_commands
from shortlink.api.link_requests import MAX_BULK_PASSWORDS, BulkCreateRequest, CreateLinkRequest
from shortlink.api.requests import api_request
from shortlink.api.resolver import api_resolver
from shortlink.api.responses import BODY_ERRORS, CODE_LINKS, BulkSummary, answers
from shortlink.commands.links import LinkCommands
from shortlink.errors import ShortlinkError
from shortlink.schemas.links import LinkView
from shortlink.wiring import api_key_store, idempotency_store, link_domains, person_access

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)


def created(commands: LinkCommands, request: CreateLinkRequest) -> dict[str, Any]:
    """The new link's view (its entry recorded, its link.created event queued)."""
    written = commands.create(request.url, request.options(link_domains(commands.owner)))
    # A private code is a capability: it is not written to the logs.
    code = "(private)" if written.link.private else written.link.code
    logger.info("link created", extra={"code": code, "owner": commands.owner})
    return written.view


@app.post(
    "/links",
    summary="Create a short link",
    operation_id="createLink",
    responses=answers(201, "the link", LinkView, *BODY_ERRORS, 409, 429, links=CODE_LINKS),
    security=needs(LINKS_WRITE),
)
def create(request: Annotated[CreateLinkRequest, Body()]) -> Response[Any]:
    caller = api_request(app)  # read once by the door
    commands = link_commands(caller)
    once = once_per_key(caller, request.model_dump(mode="json"), "create-link", idempotency_store)
    view = created(commands, request) if once is None else once(lambda: created(commands, request))
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=json.dumps(view))


def one_of_many(commands: LinkCommands, index: int, item: dict[str, Any]) -> dict[str, Any]:
    """One link of a bulk request: created, or refused on its own (its error from the API's table)."""
    try:
        request = CreateLinkRequest.model_validate(item)
    except ValidationError as error:
        message = describe_validation_errors(list(error.errors()), location_prefix=0)
        return {"index": index, "status": 422, "error": "invalid_request", "message": message}
    try:
        return {"index": index, "status": 201, "link": created(commands, request)}
    except ShortlinkError as error:
        answer = error_answer(error) or ErrorAnswer(500, "internal_error", "the link failed unexpectedly")
        if answer.status >= 500:
            logger.exception("link of a bulk request not created", extra={"index": index})
        return {"index": index, "status": answer.status, "error": answer.error, "message": answer.message}


@app.post(
    "/links/bulk",
    summary="Create up to 100 links",
    operation_id="createLinks",
    responses=answers(200, "one result per link, in order", BulkSummary, *BODY_ERRORS),
    security=needs(LINKS_WRITE),
)
def create_many(request: Annotated[BulkCreateRequest, Body()]) -> Response[Any]:
    """Up to 100 links, each created or refused on its own; 200 with one result per link, in order."""
    commands = link_commands(api_request(app))
    results = []
    passwords = 0
    with commands.together():  # one queue call for the whole batch
        for index, item in enumerate(request.links):
            passwords += item.get("password") is not None
            if item.get("password") is not None and passwords > MAX_BULK_PASSWORDS:
                message = f"at most {MAX_BULK_PASSWORDS} links with a password per bulk request"
                results.append({"index": index, "status": 422, "error": "invalid_request", "message": message})
                continue
            results.append(one_of_many(commands, index, item))
    made = sum(1 for result in results if result["status"] == 201)
    summary = {"created": made, "failed": len(results) - made, "results": results}
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(summary))


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    IDEMPOTENCY.register_lambda_context(context)
    return app.resolve(event, context)
