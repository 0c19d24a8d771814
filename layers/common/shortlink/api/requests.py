"""An API request as the routes read it: read once by the door's pre-check (shortlink.api.auth)
into one object, handed down to the commands and the presentation; nothing below reads the raw
event again but the edge trust, which reads the client's address from it when an entry is made."""

from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from shortlink.people.actors import Actor

REQUEST_CONTEXT = "api_request"
IDEMPOTENCY_KEY_HEADER = "idempotency-key"  # API Gateway lower-cases header names


@dataclass(frozen=True)
class ApiRequest:
    """Who calls (a key, or a person in one of their workspaces), the host the request came in on
    (the short links' base where the stack names none), API Gateway's request id, the
    Idempotency-Key as sent, and the raw event for the edge trust's reading of the client."""

    actor: Actor
    host: str
    request_id: str
    idempotency_key: str | None
    raw_event: dict[str, Any]

    @classmethod
    def of(cls, actor: Actor, event: APIGatewayProxyEventV2) -> "ApiRequest":
        context = event.request_context
        key = event.headers.get(IDEMPOTENCY_KEY_HEADER)
        return cls(actor, context.domain_name or "", context.request_id or "", key, event.raw_event)


def api_request(app: APIGatewayHttpResolver | APIGatewayHttpRouter) -> ApiRequest:
    """The request `app` (or a router included in it) is answering, as its pre-check read it."""
    request: ApiRequest = app.context[REQUEST_CONTEXT]
    return request
