"""SCIM's JSON, read and written with scim2-models (pydantic models of RFC 7643's schemas): a
request's User or Group checked against its schema, the resources, list responses, errors and
the discovery documents. scim2-models takes about a second to import: only SCIM requests load
this module."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from scim2_models import (
    AuthenticationScheme,
    Bulk,
    ChangePassword,
    Context,
    Email,
    EnterpriseUser,
    Error,
    ETag,
    Filter,
    Group,
    GroupMember,
    GroupMembership,
    Meta,
    Name,
    Patch,
    ResourceType,
    Schema,
    ServiceProviderConfig,
    Sort,
    User,
)

from shortlink.scim.errors import ScimProblem, invalid_value
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser
from shortlink.scim.patches import checked_user_name
from shortlink.scim.queries import MAX_COUNT

MAX_GROUP_MEMBERS = 1000


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "body"
    return f"{where}: {first.get('msg', 'invalid')}"


def _meta(kind: str, created: datetime, modified: datetime, location: str) -> Meta:
    return Meta(resource_type=kind, created=created, last_modified=modified, location=location)


def requested_user(body: Any, scim_id: str, workspace_id: str, created_at: datetime, now: datetime) -> ProvisionedUser:
    """The user a POST or PUT body describes (its schema checked); ScimProblem 400 otherwise."""
    if not isinstance(body, dict):
        raise invalid_value("the body is a SCIM User object")
    try:
        user = User[EnterpriseUser].model_validate(body, scim_ctx=Context.RESOURCE_CREATION_REQUEST)
    except ValidationError as error:
        raise invalid_value(_first_error(error)) from None
    name = user.name or Name()
    return ProvisionedUser(
        scim_id=scim_id,
        workspace_id=workspace_id,
        user_name=checked_user_name(user.user_name),
        created_at=created_at,
        modified_at=now,
        active=user.active is not False,
        external_id=(user.external_id or "")[:256],
        display_name=(user.display_name or "")[:256],
        given_name=(name.given_name or "")[:256],
        family_name=(name.family_name or "")[:256],
    )


def requested_group(
    body: Any, scim_id: str, workspace_id: str, created_at: datetime, now: datetime
) -> ProvisionedGroup:
    """The group a POST or PUT body describes (its schema checked); ScimProblem 400 otherwise."""
    if not isinstance(body, dict):
        raise invalid_value("the body is a SCIM Group object")
    try:
        group = Group.model_validate(body, scim_ctx=Context.RESOURCE_CREATION_REQUEST)
    except ValidationError as error:
        raise invalid_value(_first_error(error)) from None
    members = [member.value for member in group.members or [] if member.value]
    if not group.display_name or len(group.display_name) > 256 or len(members) > MAX_GROUP_MEMBERS:
        raise invalid_value(f"displayName: 1 to 256 characters; members: at most {MAX_GROUP_MEMBERS}")
    return ProvisionedGroup(
        scim_id, workspace_id, group.display_name, created_at, now, (group.external_id or "")[:256], frozenset(members)
    )


def _emails(user_name: str) -> list[Email] | None:
    """The userName as the user's work email, where it is an address."""
    try:
        return [Email(value=user_name, primary=True, type=Email.Type.work)]
    except ValidationError:
        return None


def user_document(user: ProvisionedUser, groups: list[ProvisionedGroup], base: str) -> dict[str, Any]:
    """The user as a SCIM resource, with the groups it belongs to."""
    name = Name(given_name=user.given_name or None, family_name=user.family_name or None)
    memberships = [
        GroupMembership(value=group.scim_id, display=group.display_name, ref=None, type=None)
        for group in groups
        if user.scim_id in group.members
    ]
    resource: User[EnterpriseUser] = User[EnterpriseUser](
        id=user.scim_id,
        external_id=user.external_id or None,
        user_name=user.user_name,
        display_name=user.display_name or None,
        name=name if user.given_name or user.family_name else None,
        active=user.active,
        emails=_emails(user.user_name),
        groups=memberships or None,
        meta=_meta("User", user.created_at, user.modified_at, f"{base}/Users/{user.scim_id}"),
    )
    return dict(resource.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))


def group_document(group: ProvisionedGroup, users: Mapping[str, ProvisionedUser], base: str) -> dict[str, Any]:
    """The group as a SCIM resource, its members named by their userName."""
    members = [
        GroupMember(value=scim_id, display=users[scim_id].user_name if scim_id in users else None, ref=None, type=None)
        for scim_id in sorted(group.members)
    ]
    resource = Group(
        id=group.scim_id,
        external_id=group.external_id or None,
        display_name=group.display_name,
        members=members or None,
        meta=_meta("Group", group.created_at, group.modified_at, f"{base}/Groups/{group.scim_id}"),
    )
    return dict(resource.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))


def list_document(resources: list[dict[str, Any]], total: int, start_index: int) -> dict[str, Any]:
    """A ListResponse of documents already shaped."""
    return {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        "totalResults": total,
        "startIndex": start_index,
        "itemsPerPage": len(resources),
        "Resources": resources,
    }


def error_document(problem: ScimProblem) -> dict[str, Any]:
    """The problem in SCIM's error schema (RFC 7644 3.12)."""
    error = Error(status=problem.status, detail=problem.detail, scim_type=problem.scim_type or None)
    return dict(error.model_dump())


def service_provider_config(base: str) -> dict[str, Any]:
    """What this service supports: PATCH and filters, paging by index; no bulk, sort, ETags or
    password changes; a bearer token."""
    config = ServiceProviderConfig(
        patch=Patch(supported=True),
        bulk=Bulk(supported=False, max_operations=0, max_payload_size=0),
        filter=Filter(supported=True, max_results=MAX_COUNT),
        change_password=ChangePassword(supported=False),
        sort=Sort(supported=False),
        etag=ETag(supported=False),
        authentication_schemes=[
            AuthenticationScheme(
                type=AuthenticationScheme.Type.oauthbearertoken,
                name="Bearer token",
                description="A workspace's SCIM token, made by an owner in the console",
                primary=True,
            )
        ],
        meta=Meta(resource_type="ServiceProviderConfig", location=f"{base}/ServiceProviderConfig"),
    )
    return dict(config.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))


def resource_types(base: str) -> list[dict[str, Any]]:
    """The User and Group resource types."""
    found = []
    for model in (User[EnterpriseUser], Group):
        kind = ResourceType.from_resource(model)
        kind.meta = Meta(resource_type="ResourceType", location=f"{base}/ResourceTypes/{kind.id}")
        found.append(dict(kind.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)))
    return found


def schemas(base: str) -> list[dict[str, Any]]:
    """The User, enterprise extension and Group schemas."""
    found = []
    for model in (User, EnterpriseUser, Group):
        schema: Schema = model.to_schema()
        schema.meta = Meta(resource_type="Schema", location=f"{base}/Schemas/{schema.id}")
        found.append(dict(schema.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)))
    return found
