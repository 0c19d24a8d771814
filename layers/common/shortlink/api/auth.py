"""The API door's callers: who a request comes from (an API key, or a person's access token in
one of their workspaces), the scopes each route declares (its OpenAPI security requirement) and
the pre-check that enforces them before anything else reads the request, in this order: body
size (413), caller (401; a person's workspace, 403), the route's scopes (403), media type (415)."""

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from shortlink.access.api_keys import ApiKeyStore, authenticate, bearer_token, writes
from shortlink.api.bodies import body_bytes, body_limit, is_json_media_type, takes_file
from shortlink.api.errors import error_response, missing_scope
from shortlink.api.requests import REQUEST_CONTEXT, ApiRequest, api_request
from shortlink.errors import ConfigurationError
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

API_KEY_SCHEME = "apiKey"  # the OpenAPI security scheme of every API-key route
# The scheme of the routes only people call (API Gateway's JWT authorizer guards them deployed).
PERSON_SCHEME = "personAccessToken"
PERSON_CONTEXT = "person_subject"
# Which of their workspaces a person's access token acts in (needed when they have several).
WORKSPACE_HEADER = "x-shortlink-workspace"


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
    return key_actor(key, people.memberships if people is not None else None, fresh=fresh) if key is not None else None


def precheck(app: APIGatewayHttpResolver, api_keys: ApiKeyStore, people: PersonAccess | None) -> Response[Any] | None:
    """Refuse oversized bodies, requests without a valid key or the route's scope, then non-JSON
    bodies; None lets the request on."""
    event = app.current_event
    body = body_bytes(event)
    size = len(body) if body is not None else len(event.body or "")
    limit = body_limit(event.path)
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
    if size and not takes_file(event.path) and not is_json_media_type(event.headers.get("content-type")):
        return error_response(
            415, "unsupported_media_type", "request body must be JSON (Content-Type: application/json)"
        )
    app.context[REQUEST_CONTEXT] = ApiRequest.of(caller, event)
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


def current_actor(app: APIGatewayHttpResolver) -> Actor:
    """Who made this request (a key, or a person with an access token), in its workspace."""
    return api_request(app).actor


# The routes' older name for it: what they read (owner, allows, expires_at) an actor has too.
current_api_key = current_actor
