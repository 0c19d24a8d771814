"""The API door's one table of errors to HTTP: every domain error a route may raise, a refused
body and an unknown route, answered as JSON `{"error", "message"}`; a bulk create's and an
import's items answer from the same table."""

import logging
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from shortlink.api.bodies import MAX_IMPORT_BODY_BYTES
from shortlink.audit.queries import InvalidAuditQuery
from shortlink.domains.errors import DnsUnavailable, DomainInUse, DomainNotFound, DomainNotVerified, DomainTaken
from shortlink.errors import (
    ApiKeyNotFound,
    CodeTaken,
    IdempotencyKeyReused,
    InvalidApiKeyOption,
    InvalidLinkOption,
    InvalidUrl,
    LinkNotFound,
    NoFreeCode,
    RateLimited,
    RequestInProgress,
    ScopeNotGrantable,
    ShortlinkError,
    SlugTaken,
    StorageUnavailable,
)
from shortlink.people.errors import (
    InvalidMemberOption,
    InvalidWorkspaceSetting,
    InvitationNotValid,
    LastOwner,
    MemberNotFound,
    RoleNotGrantable,
    SelfRemoval,
    SignInRefused,
)
from shortlink.transfer.formats import TooManyRecords, UnreadableFile
from shortlink.webhooks.endpoints import EndpointChanged, EndpointNotFound, TooManyEndpoints

logger = logging.getLogger("shortlink.api.errors")


def error_response(
    status: int,
    error: str,
    message: str,
    headers: dict[str, str] | None = None,
    details: dict[str, str] | None = None,
) -> Response[Any]:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body={"error": error, "message": message, **(details or {})},
        headers=headers,
    )


def missing_scope(action: str, scope: str) -> Response[Any]:
    return error_response(403, "missing_scope", f"{action} needs the scope {scope}", details={"scope": scope})


@dataclass(frozen=True)
class ErrorAnswer:
    status: int
    error: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)  # more fields of the JSON body


def error_answer(error: ShortlinkError) -> ErrorAnswer | None:
    """The HTTP answer to a domain error (also per item of a bulk request or an import); None if
    unexpected (a 500 whose cause is logged)."""
    retry_soon = {"Retry-After": "1"}
    match error:
        case InvalidUrl():
            return ErrorAnswer(422, "invalid_url", str(error))
        case InvalidLinkOption() | InvalidApiKeyOption() | InvalidMemberOption() | InvalidWorkspaceSetting():
            return ErrorAnswer(422, "invalid_request", str(error))  # its message names the field
        case InvalidAuditQuery():
            return ErrorAnswer(400, "invalid_query", str(error), details={"parameter": error.parameter})
        case ApiKeyNotFound():
            return ErrorAnswer(404, "not_found", f"no API key with id {error}")
        case RateLimited():
            return ErrorAnswer(429, "rate_limited", str(error), {"Retry-After": str(error.retry_after)})
        case SlugTaken():
            return ErrorAnswer(409, "slug_taken", f"slug {error} (or one that reads the same) is taken")
        case LinkNotFound():
            return ErrorAnswer(404, "not_found", f"no link with code {error}")
        case EndpointNotFound():
            return ErrorAnswer(404, "not_found", f"no webhook endpoint with id {error}")
        case EndpointChanged():
            return ErrorAnswer(409, "conflict", f"webhook endpoint {error} changed meanwhile: read it and try again")
        case TooManyEndpoints():
            return ErrorAnswer(409, "too_many_webhooks", str(error))
        case IdempotencyKeyReused():
            return ErrorAnswer(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request")
        case RequestInProgress():
            message = "a request with this Idempotency-Key is in progress"
            return ErrorAnswer(409, "request_in_progress", message, retry_soon)
        case ScopeNotGrantable():
            return ErrorAnswer(403, "missing_scope", str(error), details={"scope": error.scope})
        case TooManyRecords():  # found while reading: the rest of the file is not read
            message = (
                f"an import holds at most {error.limit} links (this file holds more) and {MAX_IMPORT_BODY_BYTES} "
                "bytes; python -m tools.operators.import_links sends larger files in parts"
            )
            return ErrorAnswer(413, "body_too_large", message)
        case UnreadableFile():
            return ErrorAnswer(422, "invalid_request", str(error))
        case RoleNotGrantable():
            message = f"your role cannot manage a member of role {error.role}"
            return ErrorAnswer(403, "role_not_grantable", message, details={"role": error.role, "scope": error.scope})
        case MemberNotFound():
            return ErrorAnswer(404, "not_found", "no such member in this workspace")
        case InvitationNotValid():
            return ErrorAnswer(404, "not_found", str(error))
        case LastOwner():
            return ErrorAnswer(409, "last_owner", "a workspace keeps at least one owner: make someone else owner first")
        case SignInRefused():  # the pool no longer takes the person's token (signed out everywhere)
            return ErrorAnswer(401, "unauthorized", "the user pool does not take this access token any more")
        case SelfRemoval():
            return ErrorAnswer(409, "self_removal", str(error))
        case CodeTaken():  # a move's: its code on the domain it goes to
            return ErrorAnswer(409, "code_taken", f"code {error} is taken on that domain (or one that reads the same)")
        case DomainTaken():
            return ErrorAnswer(409, "domain_taken", str(error))
        case DomainNotFound():
            return ErrorAnswer(404, "not_found", str(error))
        case DomainNotVerified():
            return ErrorAnswer(409, "domain_not_verified", str(error))
        case DomainInUse():
            return ErrorAnswer(409, "domain_in_use", str(error))
        case DnsUnavailable():
            return ErrorAnswer(503, "dns_unavailable", str(error), retry_soon)
        case NoFreeCode():
            return ErrorAnswer(503, "no_free_code", str(error), retry_soon)
        case StorageUnavailable():
            return ErrorAnswer(503, "unavailable", "storage is busy, retry shortly", retry_soon)
    return None


# Pydantic's ways of saying a value is no object: a nested model's (utm, preview) or a free-form one's (rules).
NOT_AN_OBJECT = frozenset({"model_type", "model_attributes_type", "dict_type"})


def _describe(error: dict[str, Any]) -> str:
    kind = error.get("type")
    message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
    location = ".".join(str(part) for part in error.get("loc", ())[1:])
    if kind == "body_invalid" or (not location and kind == "value_error"):  # about the whole body
        return message
    if not location or kind == "json_invalid":
        return "request body must be a JSON object"
    if kind in NOT_AN_OBJECT:
        return f"{location}: must be an object"
    if kind == "missing":
        return f"{location}: field required"
    if kind == "extra_forbidden":
        return f"{location}: unknown field"
    return f"{location}: {message}"


def describe_validation_errors(errors: list[Any], location_prefix: int = 1) -> str:
    """Pydantic errors as one message naming each field (`location_prefix` parts of each error's
    location are dropped: 1 for a request body, 0 for a model validated on its own)."""
    details = [_describe({**item, "loc": ("body", *tuple(item.get("loc", ()))[location_prefix:])}) for item in errors]
    return "; ".join(dict.fromkeys(details))


def register_error_handlers(app: APIGatewayHttpResolver) -> None:
    """Map every expected failure to a JSON error."""

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[Any]:
        return error_response(422, "invalid_request", describe_validation_errors(list(error.errors())))

    @app.exception_handler(ShortlinkError)
    def domain_error(error: ShortlinkError) -> Response[Any]:
        answer = error_answer(error) or ErrorAnswer(500, "internal_error", "the request failed unexpectedly")
        if answer.status >= 500:  # the caller sees only "retry": the cause must reach the logs
            logger.error("request failed: %s", error, exc_info=error)
        return error_response(
            answer.status, answer.error, answer.message, headers=answer.headers or None, details=answer.details
        )

    @app.not_found
    def route_not_found(error: NotFoundError) -> Response[Any]:
        return error_response(404, "not_found", "no such route")
