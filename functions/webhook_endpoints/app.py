"""/webhooks: a key's webhook endpoints, registered, listed, changed, given a new signing secret
and removed (deliveries: functions/webhooks)."""

from datetime import UTC, datetime
from typing import Annotated, Any, cast

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.access.api_keys import ADMIN, LINKS_READ, STATS_READ
from shortlink.api import audit
from shortlink.api.auth import current_api_key, needs
from shortlink.api.link_presentation import destination_policy
from shortlink.api.requests import api_request
from shortlink.api.resolver import api_resolver
from shortlink.api.webhook_views import (
    CREATE_ANSWERS,
    DELETE_ANSWERS,
    EDIT_ANSWERS,
    LIST_ANSWERS,
    ROTATE_ANSWERS,
    CreatedEndpoint,
    CreateEndpointRequest,
    EditEndpointRequest,
    EndpointView,
    RotatedSecret,
)
from shortlink.settings.webhooks import WebhookSettings
from shortlink.web.outbound_addresses import validate_endpoint_url
from shortlink.webhooks.endpoints import (
    MAX_ENDPOINTS_PER_ACCOUNT,
    Endpoint,
    EndpointNotFound,
    edited,
    new_endpoint,
    rotated,
)
from shortlink.wiring import addresses, api_key_store, person_access, settings_of, short_domains, webhook_endpoints

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)

EndpointId = Annotated[str, Path(pattern=r"^ep_[0-9a-f]{32}$")]


def checked_url(url: str) -> str:
    """Where a webhook of this request's account may be sent (422 invalid_url naming the problem)."""
    policy = destination_policy(api_request(app).host, addresses(), short_domains())
    return validate_endpoint_url(url, policy, settings_of(WebhookSettings).allow_loopback)


@app.post(
    "/webhooks",
    summary="Register a webhook endpoint",
    operation_id="createWebhook",
    # Account configuration whose deliveries carry the account's links and clicks: a key that
    # may not read those may not have them sent elsewhere either.
    security=needs(ADMIN, LINKS_READ, STATS_READ),
    responses=CREATE_ANSWERS,
)
def create_endpoint(request: Annotated[CreateEndpointRequest, Body()]) -> Response[Any]:
    caller = current_api_key(app)
    # No endpoint outlives the key that registered it.
    at, until = datetime.now(UTC), caller.expires_at
    endpoint = new_endpoint(caller.owner, checked_url(request.url), request.events, request.tags, at, until)
    webhook_endpoints().add(endpoint, MAX_ENDPOINTS_PER_ACCOUNT)
    audit.record(app, "webhook.created", endpoint.endpoint_id)
    logger.info("webhook endpoint registered", extra={"endpoint": endpoint.endpoint_id, "owner": endpoint.owner})
    body = CreatedEndpoint(**EndpointView.of(endpoint).model_dump(), secret=endpoint.secret)
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=body.model_dump_json())


@app.get(
    "/webhooks",
    summary="List your webhook endpoints",
    operation_id="listWebhooks",
    security=needs(ADMIN),  # account configuration: no link, no click
    responses=LIST_ANSWERS,
)
def list_endpoints() -> dict[str, Any]:
    endpoints = webhook_endpoints().list_for_owner(current_api_key(app).owner)
    return {"webhooks": [EndpointView.of(endpoint).model_dump(mode="json") for endpoint in endpoints]}


def owned(endpoint_id: str) -> Endpoint:
    """The caller's account's endpoint `endpoint_id` (404 for another account's: it is not told apart)."""
    endpoint = webhook_endpoints().get(current_api_key(app).owner, endpoint_id)
    if endpoint is None:
        raise EndpointNotFound(endpoint_id)
    return endpoint


@app.patch(
    "/webhooks/<endpoint_id>",
    summary="Change a webhook endpoint's address, events or tags, or enable it again",
    operation_id="editWebhook",
    # It may send the account's links and clicks somewhere else: what registering one needs.
    security=needs(ADMIN, LINKS_READ, STATS_READ),
    responses=EDIT_ANSWERS,
)
def edit_endpoint(endpoint_id: EndpointId, request: Annotated[EditEndpointRequest, Body()]) -> dict[str, Any]:
    endpoint = owned(endpoint_id)
    url = checked_url(request.url) if request.url is not None else None
    changed, fields = edited(endpoint, url, request.events, request.tags, enable=bool(request.enabled))
    if fields:
        changed = webhook_endpoints().replace(endpoint, changed)
        audit.record(app, "webhook.changed", endpoint_id, fields)
        logger.info("webhook endpoint changed", extra={"endpoint": endpoint_id, "changed": fields})
    return EndpointView.of(changed).model_dump(mode="json")


@app.post(
    "/webhooks/<endpoint_id>/secret",
    summary="Give a webhook endpoint a new signing secret (the old one signs beside it for 24 hours)",
    operation_id="rotateWebhookSecret",
    security=needs(ADMIN),  # the secret only proves deliveries come from here
    responses=ROTATE_ANSWERS,
)
def rotate_secret(endpoint_id: EndpointId) -> dict[str, Any]:
    endpoint = owned(endpoint_id)
    stored = webhook_endpoints().replace(endpoint, rotated(endpoint, datetime.now(UTC)))
    audit.record(app, "webhook.secret_rotated", endpoint_id)
    logger.info("webhook secret rotated", extra={"endpoint": endpoint_id})
    until = cast(datetime, stored.previous_secret_until)  # a rotation's: always set
    view = RotatedSecret(id=endpoint_id, secret=stored.secret, previous_secret_valid_until=until)
    return view.model_dump(mode="json")


@app.delete(
    "/webhooks/<endpoint_id>",
    summary="Remove a webhook endpoint (deliveries still queued for it are dropped)",
    operation_id="deleteWebhook",
    security=needs(ADMIN),  # account configuration: no link, no click
    responses=DELETE_ANSWERS,
)
def delete_endpoint(endpoint_id: EndpointId) -> Response[Any]:
    if not webhook_endpoints().delete(current_api_key(app).owner, endpoint_id):
        raise EndpointNotFound(endpoint_id)
    audit.record(app, "webhook.deleted", endpoint_id)
    return Response(status_code=204)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
