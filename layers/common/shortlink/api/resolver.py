"""HTTP concerns shared by the API-key functions (create, manage, keys), on Powertools' resolver.

One place maps domain errors and validation failures to JSON answers, and one pre-check runs
before anything else looks at a request, in this order: body size (413), API key or a person's
access token (401; a person's workspace, 403), the route's scopes (403: a person's role gives
theirs), media type (415); then the body is read as strict JSON (422) and validated. Each route
declares its scopes as its OpenAPI security requirement (`security=needs(*scopes)`, all needed),
so the document says what the pre-check enforces; a route only people call says so instead
(`security=for_people()`).
"""

import base64
import binascii
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, lru_cache
from typing import Any, NoReturn, cast
from urllib.parse import urlsplit

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.types import EventHandlerInstance
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from shortlink.access.api_keys import ApiKeyStore, authenticate, bearer_token, writes
from shortlink.api.link_views import LinkView
from shortlink.domains.model import ShortDomains, link_key
from shortlink.errors import (
    ApiKeyNotFound,
    ConfigurationError,
    InvalidApiKeyOption,
    InvalidLinkOption,
    InvalidUrl,
    LinkNotFound,
    NoFreeCode,
    RateLimited,
    ShortlinkError,
    SlugTaken,
    StorageUnavailable,
)
from shortlink.links.model import Link
from shortlink.people.access_tokens import (
    AccessTokenNotValid,
    NoWorkspaceChosen,
    PersonAccess,
    actor_of_token,
    looks_like_jwt,
    person_of_token,
)
from shortlink.people.actors import Actor
from shortlink.people.key_access import key_actor
from shortlink.settings.addresses import AddressSettings
from shortlink.settings.environment import comma_list
from shortlink.web.urls import DestinationPolicy

MAX_BODY_BYTES = 16 * 1024
# A bulk create carries up to 100 links of up to 2,048-character URLs.
BULK_PATH_SUFFIX = "/links/bulk"
MAX_BULK_BODY_BYTES = 256 * 1024
# POST /links/import takes a file as it is (CSV, SQL, JSON: any media type), up to 1 MiB.
IMPORT_PATH_SUFFIX = "/links/import"
MAX_IMPORT_BODY_BYTES = 1024 * 1024
ACTOR_CONTEXT = "actor"
JSON_MEDIA_TYPE = "application/json"
# No field takes a number this long; longer ones would also hit Python's int-string limit.
MAX_INTEGER_DIGITS = 20

API_KEY_SCHEME = "apiKey"  # the OpenAPI security scheme of every API-key route
# The scheme of the routes only people call (API Gateway's JWT authorizer guards them deployed).
PERSON_SCHEME = "personAccessToken"
PERSON_CONTEXT = "person_subject"
# Which of their workspaces a person's access token acts in (needed when they have several).
WORKSPACE_HEADER = "x-shortlink-workspace"

logger = logging.getLogger("shortlink.api.resolver")


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


def needs(*scopes: str) -> list[dict[str, list[str]]]:
    """A route's security requirement: an API key holding every one of `scopes` (the pre-check
    enforces it)."""
    return [{API_KEY_SCHEME: list(scopes)}]


def for_people() -> list[dict[str, list[str]]]:
    """The security requirement of a route only people call: the user pool's access token, with
    no workspace named (the route answers about the person, not a workspace)."""
    return [{PERSON_SCHEME: []}]


# The rule of the route Powertools makes up for a path that matches none (its not-found chain).
NOT_FOUND_RULE = "^.*$"


def missing_scope(action: str, scope: str) -> Response[Any]:
    return error_response(403, "missing_scope", f"{action} needs the scope {scope}", details={"scope": scope})


def _route_scopes(app: APIGatewayHttpResolver) -> tuple[str, list[str]] | None:
    """The route being called (`POST /links`) and the scopes it needs; None for a path no route
    matches (a path parameter outside its pattern): its answer is a 404, which needs no scope."""
    route = app.context["_route"]  # set by Powertools before any middleware runs
    if not route.security and route.rule.pattern == NOT_FOUND_RULE:
        return None
    requirements = route.security or []
    action = f"{route.method} {route.openapi_path}"
    # Fail closed: a route without its scope would be open to every key, and alternatives
    # (several requirements) are not what the pre-check enforces.
    if len(requirements) != 1 or not requirements[0].get(API_KEY_SCHEME):
        raise ConfigurationError(f"{action} declares no scope (security=needs(...))")
    return action, list(requirements[0][API_KEY_SCHEME])


def _body_bytes(event: APIGatewayProxyEventV2) -> bytes | None:
    """The request body as sent (API Gateway base64-encodes non-text bodies); None if it claims
    base64 and is not."""
    body = event.body or ""
    if not event.is_base64_encoded:
        return body.encode()
    try:
        return base64.b64decode(body, validate=True)
    except binascii.Error:
        return None


def is_json_media_type(content_type: str | None) -> bool:
    """`application/json`, in any case, with no charset or UTF-8 (the only one JSON allows)."""
    media_type, *parameters = (content_type or "").split(";")
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return media_type.strip().lower() == JSON_MEDIA_TYPE


def _caller(event: APIGatewayProxyEventV2, api_keys: ApiKeyStore, people: PersonAccess | None) -> Actor | None:
    """Who the Authorization header names: a key of the store (capped by its maker's role), or (a
    JWT, where a user pool is configured) a person of the pool in one of their workspaces; None
    if neither, or a key whose maker is no member of its workspace any more."""
    authorization = event.headers.get("authorization")
    token = bearer_token(authorization)
    fresh = writes(event.request_context.http.method)
    if people is not None and token is not None and looks_like_jwt(token):
        try:
            workspace_id = event.headers.get(WORKSPACE_HEADER)
            return actor_of_token(token, workspace_id, people, datetime.now(UTC), fresh=fresh)
        except AccessTokenNotValid:
            return None
    key = authenticate(authorization, api_keys, datetime.now(UTC), fresh=fresh)
    return key_actor(key, people.memberships if people is not None else None) if key is not None else None


def _precheck(app: APIGatewayHttpResolver, api_keys: ApiKeyStore, people: PersonAccess | None) -> Response[Any] | None:
    """Refuse oversized bodies, requests without a valid key or the route's scope, then non-JSON
    bodies; None lets the request on."""
    event = app.current_event
    body = _body_bytes(event)
    size = len(body) if body is not None else len(event.body or "")
    limit = MAX_BULK_BODY_BYTES if event.path.endswith(BULK_PATH_SUFFIX) else MAX_BODY_BYTES
    takes_file = event.path.endswith(IMPORT_PATH_SUFFIX)
    limit = MAX_IMPORT_BODY_BYTES if takes_file else limit
    if size > limit:
        return error_response(413, "body_too_large", f"request body must be at most {limit} bytes")
    if app.context["_route"].security == for_people():
        return _person_precheck(app, people)
    try:
        caller = _caller(event, api_keys, people)
    except NoWorkspaceChosen:
        return error_response(
            403,
            "no_workspace",
            f"name one of your workspaces in the {WORKSPACE_HEADER} header (GET /people/me lists them)",
        )
    if caller is None:
        return error_response(
            401,
            "unauthorized",
            "a valid API key (or a user pool access token) is required: Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    # Before the body is read: a key that may not call the route learns nothing about its body.
    route_scopes = _route_scopes(app)
    if route_scopes is not None:
        action, scopes = route_scopes
        if (lacking := next((scope for scope in scopes if not caller.allows(scope)), None)) is not None:
            return missing_scope(action, lacking)
    if size and not takes_file and not is_json_media_type(event.headers.get("content-type")):
        return error_response(
            415, "unsupported_media_type", "request body must be JSON (Content-Type: application/json)"
        )
    app.context[ACTOR_CONTEXT] = caller
    return None


def _person_precheck(app: APIGatewayHttpResolver, people: PersonAccess | None) -> Response[Any] | None:
    """A route only people call: the token must be an access token of the pool (no key)."""
    token = bearer_token(app.current_event.headers.get("authorization"))
    try:
        if people is None or token is None:
            raise AccessTokenNotValid("no token")
        app.context[PERSON_CONTEXT] = person_of_token(token, people, datetime.now(UTC))
    except AccessTokenNotValid:
        return error_response(
            401,
            "unauthorized",
            "an access token of the user pool is required: Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return None


def current_person(app: APIGatewayHttpResolver) -> str:
    """The subject of the person who called a route of theirs (security=for_people())."""
    return str(app.context[PERSON_CONTEXT])


def _refuse_body(message: str) -> NoReturn:
    raise RequestValidationError([{"type": "body_invalid", "loc": ("body",), "msg": message}])


def file_body(event: APIGatewayProxyEventV2) -> bytes:
    """The body of a route that takes a file, as sent; 422 if it claims base64 and is not."""
    body = _body_bytes(event)
    if body is None:
        _refuse_body("request body is not valid base64")
    return body


def _bounded_int(digits: str) -> int | float:
    # A float is refused by every integer field (strict), and by none of the free-form ones.
    return int(digits) if len(digits.lstrip("-")) <= MAX_INTEGER_DIGITS else float(digits)


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not JSON")


def json_object_body(event: APIGatewayProxyEventV2) -> dict[str, Any]:
    """The body as a JSON object, read strictly: UTF-8, standard JSON only, an object at the top."""
    body = _body_bytes(event)
    if body is None:
        _refuse_body("request body is not valid base64")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        _refuse_body("request body must be UTF-8 encoded JSON")
    try:
        document = json.loads(text, parse_int=_bounded_int, parse_constant=_not_json)
    except ValueError:
        _refuse_body("request body must be a JSON object")
    if not isinstance(document, dict):
        _refuse_body("request body must be a JSON object")
    return document


class _CheckedRequestValidation(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation behind our pre-check, reading the body our strict way.
    Powertools runs request validation before any other middleware, so the pre-check lives here
    to come first."""

    def __init__(self, api_keys: Callable[[], ApiKeyStore], people: Callable[[], PersonAccess | None]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.api_keys = api_keys
        self.people = people

    def handler(self, app: EventHandlerInstance, next_middleware: NextMiddleware) -> Response[Any]:
        checked = _precheck(cast(APIGatewayHttpResolver, app), self.api_keys(), self.people())
        return checked or super().handler(app, next_middleware)

    def _get_body(self, app: EventHandlerInstance) -> dict[str, Any]:
        return json_object_body(cast(APIGatewayHttpResolver, app).current_event)


def _no_people() -> None:
    return None


def api_resolver(
    api_keys: Callable[[], ApiKeyStore], people: Callable[[], PersonAccess | None] = _no_people
) -> APIGatewayHttpResolver:
    """The resolver of an API-key function: validation on, the pre-check first (keys looked up in
    the store `api_keys` gives, people's access tokens checked with what `people` gives, both
    built by the composition root on first use), errors as JSON."""
    app = APIGatewayHttpResolver(enable_validation=True)
    app._request_validation_middleware = _CheckedRequestValidation(api_keys, people)
    register_error_handlers(app)
    return app


def public_base_url(app: APIGatewayHttpResolver, addresses: AddressSettings) -> str:
    """Where short links live: the configured base, else the domain this request came in on."""
    return addresses.public_base_url or f"https://{app.current_event.request_context.domain_name}"


def link_view(app: APIGatewayHttpResolver, link: Link, addresses: AddressSettings, domains: ShortDomains) -> LinkView:
    """How the API shows `link`: its short URL and domain are its domain's."""
    base = domains.base_url(link.domain, public_base_url(app, addresses))
    return LinkView.of(link, base, domains.public_name(link.domain))


def requested_key(code: str, domain: str | None, domains: ShortDomains) -> str:
    """The key of `code` on the domain a request names in `?domain=` (default: the first);
    InvalidLinkOption (422) for a domain the stack does not serve."""
    return link_key(domains.domain_named(domain), code)


def destination_policy(
    app: APIGatewayHttpResolver, addresses: AddressSettings, domains: ShortDomains
) -> DestinationPolicy:
    """Our own hosts (the public one, every short domain, the one this request came in on, the
    stack's others) and the blocklist, each in any spelling a browser reads."""
    own = {
        urlsplit(public_base_url(app, addresses)).netloc,
        *domains.names,
        app.current_event.request_context.domain_name or "",
        *stack_own_hosts(addresses.own_hosts_parameter),
    }
    return _policy(frozenset(host for host in own if host), addresses.blocked_domains)


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


def current_actor(app: APIGatewayHttpResolver) -> Actor:
    """Who made this request (a key, or a person with an access token), in its workspace."""
    actor: Actor = app.context[ACTOR_CONTEXT]
    return actor


# The routes' older name for it: what they read (owner, allows, expires_at) an actor has too.
current_api_key = current_actor


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
        case InvalidLinkOption() | InvalidApiKeyOption():
            return ErrorAnswer(422, "invalid_request", str(error))  # its message names the field
        case ApiKeyNotFound():
            return ErrorAnswer(404, "not_found", f"no API key with id {error}")
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
    """Map every expected failure to a JSON error."""

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[Any]:
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
