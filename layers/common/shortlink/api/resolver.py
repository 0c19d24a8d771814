"""The API door's resolver (Powertools' HTTP API resolver) for the API-key functions: request
validation on, the pre-check of shortlink.api.auth first, the body read the strict way of
shortlink.api.bodies, errors answered from the table of shortlink.api.errors. Each route
declares its scopes as its OpenAPI security requirement (`security=needs(*scopes)`, all needed);
a route only people call says so instead (`security=for_people()`)."""

from collections.abc import Callable
from typing import Any, cast

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware
from aws_lambda_powertools.event_handler.types import EventHandlerInstance

from shortlink.access.api_keys import ApiKeyStore
from shortlink.api.auth import precheck
from shortlink.api.bodies import json_object_body
from shortlink.api.errors import register_error_handlers
from shortlink.people.access_tokens import PersonAccess
from shortlink.web.resolvers import EitherFrontResolver


class _CheckedRequestValidation(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation behind our pre-check, reading the body our strict way.
    Powertools runs request validation before any other middleware, so the pre-check lives here
    to come first."""

    def __init__(self, api_keys: Callable[[], ApiKeyStore], people: Callable[[], PersonAccess | None]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.api_keys = api_keys
        self.people = people

    def handler(self, app: EventHandlerInstance, next_middleware: NextMiddleware) -> Response[Any]:
        checked = precheck(cast(APIGatewayHttpResolver, app), self.api_keys(), self.people())
        return checked or super().handler(app, next_middleware)

    def _get_body(self, app: EventHandlerInstance) -> dict[str, Any]:
        return json_object_body(cast(APIGatewayHttpResolver, app).current_event)


def _no_people() -> None:
    return None


def api_resolver(
    api_keys: Callable[[], ApiKeyStore], people: Callable[[], PersonAccess | None] = _no_people
) -> APIGatewayHttpResolver:
    """The resolver of an API-key function, at either front (shortlink.web.resolvers): validation
    on, the pre-check first (keys looked up in the store `api_keys` gives, people's access tokens
    checked with what `people` gives, both built by the composition root on first use), errors as
    JSON."""
    app = EitherFrontResolver(enable_validation=True)
    app._request_validation_middleware = _CheckedRequestValidation(api_keys, people)
    register_error_handlers(app)
    return app
