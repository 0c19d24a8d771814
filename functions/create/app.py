"""POST /links: create a short link for the caller's API key."""

import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyPersistenceLayerError,
    IdempotencyValidationError,
)
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from shortlink.access.api_keys import LINKS_WRITE
from shortlink.access.rate_limits import CreateAllowance
from shortlink.api.link_requests import MAX_BULK_PASSWORDS, BulkCreateRequest, CreateLinkRequest
from shortlink.api.link_views import (
    LinkView,
)
from shortlink.api.resolver import (
    ErrorAnswer,
    api_resolver,
    current_api_key,
    describe_validation_errors,
    destination_policy,
    error_answer,
    error_response,
    link_view,
    needs,
)
from shortlink.api.responses import BODY_ERRORS, CODE_LINKS, BulkSummary, answers
from shortlink.audit.recording import link_target
from shortlink.entrypoints import audit
from shortlink.errors import ShortlinkError
from shortlink.links.use_cases import create_link
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.webhooks import emitting as webhook_events
from shortlink.webhooks.model import EventMessage, link_event
from shortlink.wiring import (
    addresses,
    api_key_store,
    code_generator,
    idempotency_store,
    link_repository,
    person_access,
    settings_of,
    short_domains,
    webhook_queue,
    window_counter,
)

IDEMPOTENCY_KEY_HEADER = "idempotency-key"  # API Gateway lower-cases header names
IDEMPOTENCY_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")
IDEMPOTENCY = IdempotencyConfig(
    event_key_jmespath="[owner, key]",
    payload_validation_jmespath="request",  # the same key with another body is refused
    expires_after_seconds=24 * 3600,
)

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)


def create_and_describe(
    request: CreateLinkRequest, owner: str, events: list[EventMessage] | None = None
) -> dict[str, Any]:
    """The new link's view; its link.created event is queued now, or added to `events` (a bulk
    create queues its events together)."""
    now = datetime.now(UTC)
    # Inside the idempotent part: a replayed answer costs no allowance.
    allowance = CreateAllowance(owner, settings_of(RateLimitSettings).creates_per_minute, now, window_counter())
    link = create_link(
        request.url,
        owner,
        code_generator(),
        link_repository(),
        now,
        request.options(short_domains()),
        destination_policy(app, addresses(), short_domains()),
        allowance,
    )
    # A private code is a capability: it is not written to the logs.
    logger.info("link created", extra={"code": "(private)" if link.private else link.code, "owner": owner})
    view = link_view(app, link, addresses(), short_domains()).model_dump(mode="json")
    queued = [link_event("link.created", owner, link.tags, view, now)]
    # Inside the idempotent part: a replayed answer records nothing.
    audit.record(app, "link.created", link_target(link), along=queued)
    if events is None:
        webhook_events.emit(webhook_queue(), queued)
    else:
        events.extend(queued)
    return view


def create_once(attempt: dict[str, Any]) -> dict[str, Any]:
    """The create of one Idempotency-Key: Powertools stores its answer, and a retry with the same
    key and body gets that answer instead of a second link."""
    return create_and_describe(CreateLinkRequest.model_validate(attempt["request"]), attempt["owner"])


@app.post(
    "/links",
    summary="Create a short link",
    operation_id="createLink",
    responses=answers(201, "the link", LinkView, *BODY_ERRORS, 409, 429, links=CODE_LINKS),
    security=needs(LINKS_WRITE),
)
def create(request: Annotated[CreateLinkRequest, Body()]) -> Response[Any]:
    owner = current_api_key(app).owner  # the account: its keys share links and allowance
    idempotency_key = app.current_event.headers.get(IDEMPOTENCY_KEY_HEADER)
    if idempotency_key is None:
        created = create_and_describe(request, owner)
    else:
        if not IDEMPOTENCY_KEY_PATTERN.fullmatch(idempotency_key):
            return error_response(422, "invalid_request", "Idempotency-Key: 1-255 printable ASCII characters")
        once = idempotent_function(
            create_once,
            data_keyword_argument="attempt",
            persistence_store=idempotency_store(),
            config=IDEMPOTENCY,
            key_prefix="create-link",
        )
        # Scoped by API key: two callers may pick the same Idempotency-Key.
        created = once(attempt={"owner": owner, "key": idempotency_key, "request": request.model_dump(mode="json")})
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=json.dumps(created))


def create_one_of_many(index: int, item: dict[str, Any], owner: str, events: list[EventMessage]) -> dict[str, Any]:
    try:
        request = CreateLinkRequest.model_validate(item)
    except ValidationError as error:
        message = describe_validation_errors(list(error.errors()), location_prefix=0)
        return {"index": index, "status": 422, "error": "invalid_request", "message": message}
    try:
        return {"index": index, "status": 201, "link": create_and_describe(request, owner, events)}
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
    owner = current_api_key(app).owner  # the account: its keys share links and allowance
    results = []
    events: list[EventMessage] = []
    passwords = 0
    for index, item in enumerate(request.links):
        passwords += item.get("password") is not None
        if item.get("password") is not None and passwords > MAX_BULK_PASSWORDS:
            message = f"at most {MAX_BULK_PASSWORDS} links with a password per bulk request"
            results.append({"index": index, "status": 422, "error": "invalid_request", "message": message})
            continue
        results.append(create_one_of_many(index, item, owner, events))
    webhook_events.emit(webhook_queue(), events)  # one queue call for the whole batch
    created = sum(1 for result in results if result["status"] == 201)
    summary = {"created": created, "failed": len(results) - created, "results": results}
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(summary))


@app.exception_handler(IdempotencyValidationError)
def idempotency_key_reused(error: IdempotencyValidationError) -> Response[Any]:
    return error_response(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request")


@app.exception_handler(IdempotencyAlreadyInProgressError)
def idempotency_in_progress(error: IdempotencyAlreadyInProgressError) -> Response[Any]:
    return error_response(
        409, "request_in_progress", "a request with this Idempotency-Key is in progress", headers={"Retry-After": "1"}
    )


@app.exception_handler(IdempotencyPersistenceLayerError)
def idempotency_store_failed(error: IdempotencyPersistenceLayerError) -> Response[Any]:
    logger.exception("idempotency record not read or written")
    return error_response(503, "unavailable", "storage is busy, retry shortly", headers={"Retry-After": "1"})


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    IDEMPOTENCY.register_lambda_context(context)
    return app.resolve(event, context)
