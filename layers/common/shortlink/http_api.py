"""HTTP concerns shared by the API-key functions (create, manage), on Powertools' resolver.

One place maps domain errors and validation failures to JSON answers, and one pre-check
(body size, then API key) runs before anything else looks at a request.
"""

import logging
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any
from urllib.parse import urlsplit

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from shortlink.api_keys import ApiKey, authenticate
from shortlink.config import comma_list, settings
from shortlink.errors import (
    InvalidLinkOption,
    InvalidUrl,
    LinkNotFound,
    NoFreeCode,
    RateLimited,
    ShortlinkError,
    SlugTaken,
    StorageUnavailable,
)
from shortlink.services import api_key_store
from shortlink.urls import DestinationPolicy

MAX_BODY_BYTES = 16 * 1024
# A bulk create carries up to 100 links of up to 2,048-character URLs.
BULK_PATH_SUFFIX = "/links/bulk"
MAX_BULK_BODY_BYTES = 256 * 1024
API_KEY_CONTEXT = "api_key"

logger = logging.getLogger("shortlink.http_api")


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
    limit = MAX_BULK_BODY_BYTES if app.current_event.path.endswith(BULK_PATH_SUFFIX) else MAX_BODY_BYTES
    if body and len(body.encode()) > limit:
        return error_response(413, "body_too_large", f"request body must be at most {limit} bytes")
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


def public_base_url(app: APIGatewayHttpResolver) -> str:
    """Where short links live: the configured base, else the domain this request came in on."""
    return settings().public_base_url or f"https://{app.current_event.request_context.domain_name}"


def destination_policy(app: APIGatewayHttpResolver) -> DestinationPolicy:
    """Our own hosts (the public one, the one this request came in on, the stack's others) and
    the blocklist, each in any spelling a browser reads."""
    own = {
        urlsplit(public_base_url(app)).netloc,
        app.current_event.request_context.domain_name or "",
        *stack_own_hosts(settings().own_hosts_parameter),
    }
    return _policy(frozenset(host for host in own if host), settings().blocked_domains)


# The same few hosts come with every request: parse them once (a bulk create checks 100 URLs).
_policy = lru_cache(maxsize=16)(DestinationPolicy.of)


@cache
def stack_own_hosts(parameter: str) -> frozenset[str]:
    """The hosts the stack wrote to SSM `parameter` (none without one): they never change for a
    stack, so each execution environment reads them once."""
    if not parameter:
        return frozenset()
    from aws_lambda_powertools.utilities.parameters import get_parameter
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

    try:
        hosts = get_parameter(parameter, force_fetch=True)  # held by @cache, not by Powertools
    except GetParameterError as error:  # throttled, or not written yet while the stack deploys
        raise StorageUnavailable(f"own hosts not readable: {error}") from error
    return comma_list(hosts)


def current_api_key(app: APIGatewayHttpResolver) -> ApiKey:
    key: ApiKey = app.context[API_KEY_CONTEXT]
    return key


def _describe(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return "request body must be a JSON object"
    location = ".".join(str(part) for part in error.get("loc", ())[1:])
    if not location and error.get("type") == "value_error":  # a check of the whole body
        return str(error.get("msg", "is invalid")).removeprefix("Value error, ")
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


@dataclass(frozen=True)
class ErrorAnswer:
    status: int
    error: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


def error_answer(error: ShortlinkError) -> ErrorAnswer | None:
    """The HTTP answer to a domain error (also per item of a bulk request); None if unexpected."""
    retry_soon = {"Retry-After": "1"}
    match error:
        case InvalidUrl():
            return ErrorAnswer(422, "invalid_url", str(error))
        case InvalidLinkOption():
            return ErrorAnswer(422, "invalid_request", f"{error.field}: {error}")
        case RateLimited():
            return ErrorAnswer(429, "rate_limited", str(error), {"Retry-After": str(error.retry_after)})
        case SlugTaken():
            return ErrorAnswer(409, "slug_taken", f"slug {error} (or one that reads the same) is taken")
        case LinkNotFound():
            return ErrorAnswer(404, "not_found", f"no link with code {error}")
        case NoFreeCode():
            return ErrorAnswer(503, "no_free_code", str(error), retry_soon)
        case StorageUnavailable():
            return ErrorAnswer(503, "unavailable", "storage is busy, retry shortly", retry_soon)
    return None


def describe_validation_errors(errors: list[Any], location_prefix: int = 1) -> str:
    """Pydantic errors as one message naming each field (`location_prefix` parts of each error's
    location are dropped: 1 for a request body, 0 for a model validated on its own)."""
    details = [_describe({**item, "loc": ("body", *tuple(item.get("loc", ()))[location_prefix:])}) for item in errors]
    return "; ".join(dict.fromkeys(details))


def register_error_handlers(app: APIGatewayHttpResolver) -> None:
    """Map every expected failure to a JSON error; a failing pre-check wins over validation."""

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[Any]:
        refused = _precheck(app)
        if refused is not None:
            return refused
        return error_response(422, "invalid_request", describe_validation_errors(list(error.errors())))

    @app.exception_handler(ShortlinkError)
    def domain_error(error: ShortlinkError) -> Response[Any]:
        answer = error_answer(error) or ErrorAnswer(500, "internal_error", "the request failed unexpectedly")
        if answer.status >= 500:  # the caller sees only "retry": the cause must reach the logs
            logger.error("request failed: %s", error, exc_info=error)
        return error_response(answer.status, answer.error, answer.message, headers=answer.headers or None)

    @app.not_found
    def route_not_found(error: NotFoundError) -> Response[Any]:
        return error_response(404, "not_found", "no such route")
