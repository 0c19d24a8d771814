"""SCIM 2.0 at /scim/v2 (RFC 7644), for a workspace's identity provider: the discovery
documents, Users and Groups. A workspace's SCIM token (made by an owner on the console's Single
sign-on page) is the only way in; every answer is SCIM's JSON, errors in its error schema.
Served by the console's function, which manages members already (shortlink.scim.provisioning)."""

import json
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.audit.model import Action
from shortlink.console import audit
from shortlink.console.plumbing import browser_host, current_event, host, now
from shortlink.errors import ShortlinkError, StorageUnavailable
from shortlink.people.actors import Actor
from shortlink.people.roles import scopes_of
from shortlink.scim.errors import ScimProblem, not_found
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser
from shortlink.scim.patches import patched_group, patched_user
from shortlink.scim.provisioning import Change, Provisioning, change_user, create_user, delete_user, regroup
from shortlink.scim.queries import Equality, page_of, parsed_filter, projected
from shortlink.scim.tokens import ScimToken, authenticated
from shortlink.wiring import (
    api_key_store,
    memberships,
    person_sessions,
    provisioned_groups,
    provisioned_users,
    scim_tokens,
)

PREFIX = "/scim/v2"
SCIM_JSON = "application/scim+json"
MAX_BODY_BYTES = 256 * 1024
DISCOVERY = ("ServiceProviderConfig", "ResourceTypes", "Schemas")
USER_FILTERS = frozenset({"username", "externalid", "id"})
GROUP_FILTERS = frozenset({"displayname", "externalid", "id"})

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped
Handler = Callable[..., Response[Any]]


def answer(status: int, document: Any = None, headers: dict[str, str] | None = None) -> Response[Any]:
    body = "" if document is None else json.dumps(document)
    return Response(status, SCIM_JSON, body, headers={"Cache-Control": "no-store", **(headers or {})})


def problem(error: ScimProblem) -> Response[Any]:
    from shortlink.scim.documents import error_document

    extra = {"WWW-Authenticate": 'Bearer realm="scim"'} if error.status == 401 else None
    return answer(error.status, error_document(error), extra)


def scim_route(handler: Handler) -> Handler:
    """Every SCIM route: a refusal or a store's failure answered in SCIM's error schema."""

    @wraps(handler)
    def answered(*args: Any, **kwargs: Any) -> Response[Any]:
        try:
            return handler(*args, **kwargs)
        except ScimProblem as error:
            return problem(error)
        except StorageUnavailable as error:
            logger.error("SCIM request failed: %s", error)
            return problem(ScimProblem(503, "the store did not answer: try again"))
        except ShortlinkError as error:
            return problem(ScimProblem(400, str(error), "invalidValue"))

    return answered


def caller() -> ScimToken:
    """The SCIM token of this request; ScimProblem 401 without a live one."""
    headers = current_event().headers or {}
    token = authenticated(headers.get("authorization"), scim_tokens())
    if token is None:
        raise ScimProblem(401, "a workspace's SCIM token is needed (Authorization: Bearer scim_…)")
    return token


def stores(token: ScimToken) -> Provisioning:
    return Provisioning(
        provisioned_users(), provisioned_groups(), memberships(), api_key_store(), person_sessions(),
        f"SCIM ({token.token_id})",
    )  # fmt: skip


def recorded(token: ScimToken, changes: list[Change]) -> None:
    """The members provisioning changed, in the audit log, by the token."""
    actor = Actor("key", token.token_id, f"SCIM token {token.token_id}", token.workspace_id, scopes_of("admin"))
    for change in changes:
        action: Action = change.action  # type: ignore[assignment]  # provisioning's are member.* actions
        audit.record(actor, action, change.subject)
        logger.info("SCIM changed a member", extra={"action": change.action, "workspace_id": token.workspace_id})


def base() -> str:
    return f"https://{browser_host() or host()}{PREFIX}"


def body() -> Any:
    event = current_event()
    raw = event.decoded_body or ""
    if len(raw.encode()) > MAX_BODY_BYTES:
        raise ScimProblem(413, f"the body is larger than {MAX_BODY_BYTES} bytes")
    try:
        return json.loads(raw)
    except ValueError:
        raise ScimProblem(400, "the body is not JSON", "invalidSyntax") from None


def query() -> dict[str, str]:
    return dict(current_event().query_string_parameters or {})


def listed(resources: list[Any], matches: Callable[[Any], bool]) -> dict[str, Any]:
    from shortlink.scim.documents import list_document

    page = page_of(query())
    found = [each for each in resources if matches(each)]
    return list_document(page.of(found), len(found), page.start_index)


def _user_values(user: ProvisionedUser) -> dict[str, str]:
    return {"username": user.user_name, "externalid": user.external_id, "id": user.scim_id}


def _group_values(group: ProvisionedGroup) -> dict[str, str]:
    return {"displayname": group.display_name, "externalid": group.external_id, "id": group.scim_id}


def _matching(equality: Equality | None, values: Callable[[Any], dict[str, str]]) -> Callable[[Any], bool]:
    return lambda each: equality is None or equality.matches(values(each))


@router.get(f"{PREFIX}/ServiceProviderConfig")
@scim_route
def service_provider_config() -> Response[Any]:
    from shortlink.scim.documents import service_provider_config as document

    caller()
    return answer(200, document(base()))


def _user_document(user: ProvisionedUser, groups: list[ProvisionedGroup]) -> dict[str, Any]:
    from shortlink.scim.documents import user_document

    return user_document(user, groups, base())


@router.get(f"{PREFIX}/Users")
@scim_route
def list_users() -> Response[Any]:
    token = caller()
    equality = parsed_filter(query().get("filter"), USER_FILTERS)
    groups = provisioned_groups().of_workspace(token.workspace_id)
    found = listed(provisioned_users().of_workspace(token.workspace_id), _matching(equality, _user_values))
    found["Resources"] = [projected(_user_document(user, groups), query()) for user in found["Resources"]]
    return answer(200, found)


def _user(token: ScimToken, scim_id: str) -> ProvisionedUser:
    user = provisioned_users().get(token.workspace_id, scim_id) if 0 < len(scim_id) <= 64 else None
    if user is None:
        raise not_found("User", scim_id)
    return user


@router.get(f"{PREFIX}/Users/<scim_id>")
@scim_route
def get_user(scim_id: str) -> Response[Any]:
    token = caller()
    user = _user(token, scim_id)
    return answer(200, projected(_user_document(user, provisioned_groups().of_workspace(token.workspace_id)), query()))


@router.post(f"{PREFIX}/Users")
@scim_route
def create_scim_user() -> Response[Any]:
    from shortlink.scim.documents import requested_user

    token = caller()
    at = now()
    user = requested_user(body(), secrets.token_hex(16), token.workspace_id, at, at)
    stored, changes = create_user(stores(token), user, at)
    recorded(token, changes)
    document = _user_document(stored, provisioned_groups().of_workspace(token.workspace_id))
    return answer(201, document, {"Location": document["meta"]["location"]})


@router.put(f"{PREFIX}/Users/<scim_id>")
@scim_route
def replace_user(scim_id: str) -> Response[Any]:
    from shortlink.scim.documents import requested_user

    token = caller()
    before, at = _user(token, scim_id), now()
    after = requested_user(body(), scim_id, token.workspace_id, before.created_at, at)
    stored, changes = change_user(stores(token), before, after, at)
    recorded(token, changes)
    return answer(200, _user_document(stored, provisioned_groups().of_workspace(token.workspace_id)))


@router.patch(f"{PREFIX}/Users/<scim_id>")
@scim_route
def patch_user(scim_id: str) -> Response[Any]:
    token = caller()
    before, at = _user(token, scim_id), now()
    stored, changes = change_user(stores(token), before, patched_user(before, body(), at), at)
    recorded(token, changes)
    return answer(200, _user_document(stored, provisioned_groups().of_workspace(token.workspace_id)))


@router.delete(f"{PREFIX}/Users/<scim_id>")
@scim_route
def remove_user(scim_id: str) -> Response[Any]:
    token = caller()
    _user(token, scim_id)
    recorded(token, delete_user(stores(token), token.workspace_id, scim_id, now()))
    return answer(204)


def _group_document(token: ScimToken, group: ProvisionedGroup) -> dict[str, Any]:
    from shortlink.scim.documents import group_document

    users = {user.scim_id: user for user in provisioned_users().of_workspace(token.workspace_id)}
    return group_document(group, users, base())


def _group(token: ScimToken, scim_id: str) -> ProvisionedGroup:
    group = provisioned_groups().get(token.workspace_id, scim_id) if 0 < len(scim_id) <= 64 else None
    if group is None:
        raise not_found("Group", scim_id)
    return group


@router.get(f"{PREFIX}/Groups")
@scim_route
def list_groups() -> Response[Any]:
    token = caller()
    equality = parsed_filter(query().get("filter"), GROUP_FILTERS)
    found = listed(provisioned_groups().of_workspace(token.workspace_id), _matching(equality, _group_values))
    found["Resources"] = [projected(_group_document(token, group), query()) for group in found["Resources"]]
    return answer(200, found)


@router.get(f"{PREFIX}/Groups/<scim_id>")
@scim_route
def get_group(scim_id: str) -> Response[Any]:
    token = caller()
    return answer(200, projected(_group_document(token, _group(token, scim_id)), query()))


@router.post(f"{PREFIX}/Groups")
@scim_route
def create_group() -> Response[Any]:
    from shortlink.scim.documents import requested_group

    token = caller()
    at = now()
    group = requested_group(body(), secrets.token_hex(16), token.workspace_id, at, at)
    if any(
        each.display_name.lower() == group.display_name.lower()
        for each in provisioned_groups().of_workspace(token.workspace_id)
    ):
        raise ScimProblem(409, f"displayName {group.display_name} is provisioned already", "uniqueness")
    recorded(token, regroup(stores(token), None, group, at))
    document = _group_document(token, group)
    return answer(201, document, {"Location": document["meta"]["location"]})


@router.put(f"{PREFIX}/Groups/<scim_id>")
@scim_route
def replace_group(scim_id: str) -> Response[Any]:
    from shortlink.scim.documents import requested_group

    token = caller()
    before, at = _group(token, scim_id), now()
    after = requested_group(body(), scim_id, token.workspace_id, before.created_at, at)
    recorded(token, regroup(stores(token), before, after, at))
    return answer(200, _group_document(token, after))


@router.patch(f"{PREFIX}/Groups/<scim_id>")
@scim_route
def patch_group(scim_id: str) -> Response[Any]:
    token = caller()
    before, at = _group(token, scim_id), now()
    after = patched_group(before, body(), at)
    recorded(token, regroup(stores(token), before, after, at))
    return answer(200, _group_document(token, after))


@router.delete(f"{PREFIX}/Groups/<scim_id>")
@scim_route
def remove_group(scim_id: str) -> Response[Any]:
    token = caller()
    recorded(token, regroup(stores(token), _group(token, scim_id), None, now()))
    return answer(204)


def _discovery(kind: str) -> list[dict[str, Any]]:
    from shortlink.scim.documents import resource_types, schemas

    return resource_types(base()) if kind == "ResourceTypes" else schemas(base())


@router.get(f"{PREFIX}/<kind>")
@scim_route
def discovery_list(kind: str) -> Response[Any]:
    """ResourceTypes or Schemas, as a ListResponse (Users and Groups have their own routes)."""
    from shortlink.scim.documents import list_document

    caller()
    if kind not in DISCOVERY[1:]:
        raise ScimProblem(404, f"no endpoint {kind[:64]!r}")
    found = _discovery(kind)
    return answer(200, list_document(found, len(found), 1))


@router.get(f"{PREFIX}/<kind>/<name>")
@scim_route
def discovery_item(kind: str, name: str) -> Response[Any]:
    """One resource type (by name) or schema (by its URN)."""
    caller()
    if kind not in DISCOVERY[1:]:
        raise ScimProblem(404, f"no endpoint {kind[:64]!r}")
    found = next((each for each in _discovery(kind) if each["id"] == name), None)
    if found is None:
        raise not_found(kind.removesuffix("s"), name)
    return answer(200, found)


@router.route(f"{PREFIX}/<kind>", method=["POST", "PUT", "PATCH", "DELETE"])
@router.route(f"{PREFIX}/<kind>/<name>", method=["POST", "PUT", "PATCH", "DELETE"])
@scim_route
def read_only(kind: str, name: str = "") -> Response[Any]:
    """The discovery endpoints are read only (RFC 7644 4): 405 to any other method; no POST
    .search (501). Registered
    last: Powertools tries dynamic routes in order, and /Users/<id> and /Groups/<id> come first."""
    caller()
    if ".search" in (kind, name):  # POST searching (RFC 7644 3.4.3): filters on GET do it here
        raise ScimProblem(501, "POST .search is not supported: filter with GET")
    if kind not in DISCOVERY:
        raise ScimProblem(404, f"no endpoint {kind[:64]!r}")
    raise ScimProblem(405, f"{kind} is read only")
