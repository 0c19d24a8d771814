"""HTTP concerns shared by the API-key functions (create, manage), on Powertools' resolver.

One place maps domain errors and validation failures to JSON answers, and one pre-check
(body size, then API key) runs before anything else looks at a request.
"""

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from shortlink.api_keys import ApiKey, authenticate
from shortlink.errors import (
    InvalidLinkOption,
    InvalidUrl,
    LinkNotFound,
    NoFreeCode,
    RateLimited,
    SlugTaken,
    StorageUnavailable,
)
from shortlink.services import api_key_store

MAX_BODY_BYTES = 16 * 1024
API_KEY_CONTEXT = "api_key"


def error_response(status: int, error: str, message: str, headers: dict[str, str] | None = None) -> Response[Any]:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body={"error": error, "message": message},
        headers=headers,
    )


def _precheck(app: APIGatewayHttpResolver) -> Response[Any] | None:
    """Refuse oversized bodies, requests without a valid key, then non-JSON bodies; None lets the request on."""
    body = app.current_event.decoded_body
    if body and len(body.encode()) > MAX_BODY_BYTES:
        return error_response(413, "body_too_large", f"request body must be at most {MAX_BODY_BYTES} bytes")
    key = authenticate(app.current_event.headers.get("authorization"), api_key_store())
    if key is None:
        return error_response(
            401,
            "unauthorized",
            "a valid API key is required: Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    content_type = app.current_event.headers.get("content-type", "application/json")
    if body and not content_type.lower().startswith("application/json"):
        return error_response(
            415, "unsupported_media_type", "request body must be JSON (Content-Type: application/json)"
        )
    app.context[API_KEY_CONTEXT] = key
    return None


def require_api_key(app: APIGatewayHttpResolver, next_middleware: NextMiddleware) -> Response[Any]:
    return _precheck(app) or next_middleware(app)


def current_api_key(app: APIGatewayHttpResolver) -> ApiKey:
    key: ApiKey = app.context[API_KEY_CONTEXT]
    return key


def _describe(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return "request body must be a JSON object"
    location = ".".join(str(part) for part in error.get("loc", ())[1:])
    if not location:
        return "request body must be a JSON object"
    message = str(error.get("msg", "is invalid"))
    if error.get("type") == "missing":
        return f"{location}: field required"
    if error.get("type") == "extra_forbidden":
        return f"{location}: unknown field"
    if error.get("type") == "model_attributes_type":
        return "request body must be a JSON object"
    return f"{location}: {message.removeprefix('Value error, ')}"


def register_error_handlers(app: APIGatewayHttpResolver) -> None:
    """Map every expected failure to a JSON error; a failing pre-check wins over validation."""

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[Any]:
        refused = _precheck(app)
        if refused is not None:
            return refused
        details = [_describe(item) for item in error.errors()]
        return error_response(422, "invalid_request", "; ".join(dict.fromkeys(details)))

    @app.exception_handler(InvalidUrl)
    def invalid_url(error: InvalidUrl) -> Response[Any]:
        return error_response(422, "invalid_url", str(error))

    @app.exception_handler(InvalidLinkOption)
    def invalid_option(error: InvalidLinkOption) -> Response[Any]:
        return error_response(422, "invalid_request", f"{error.field}: {error}")

    @app.exception_handler(RateLimited)
    def rate_limited(error: RateLimited) -> Response[Any]:
        return error_response(429, "rate_limited", str(error), headers={"Retry-After": str(error.retry_after)})

    @app.exception_handler(SlugTaken)
    def slug_taken(error: SlugTaken) -> Response[Any]:
        return error_response(409, "slug_taken", f"slug {error} (or one that reads the same) is taken")

    @app.exception_handler(LinkNotFound)
    def link_not_found(error: LinkNotFound) -> Response[Any]:
        return error_response(404, "not_found", f"no link with code {error}")

    @app.not_found
    def route_not_found(error: NotFoundError) -> Response[Any]:
        return error_response(404, "not_found", "no such route")

    @app.exception_handler(StorageUnavailable)
    def storage_unavailable(error: StorageUnavailable) -> Response[Any]:
        return error_response(503, "unavailable", "storage is busy, retry shortly", headers={"Retry-After": "1"})

    @app.exception_handler(NoFreeCode)
    def no_free_code(error: NoFreeCode) -> Response[Any]:
        return error_response(503, "no_free_code", str(error), headers={"Retry-After": "1"})
