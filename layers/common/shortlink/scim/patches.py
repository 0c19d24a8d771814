"""PATCH (RFC 7644 3.5.2) as Okta and Entra send it: `replace`/`add` with a path or with a value
object of attributes, Entra's capitalised ops and its "True"/"False" strings, and a group's
members added or removed (`members` with a list of values, or `members[value eq "…"]`).
Attributes the workspace does not keep (a title, an address) are accepted and ignored, as an
identity provider sends what its mapping holds."""

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from shortlink.scim.errors import ScimProblem, invalid_value
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser

PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
MAX_OPERATIONS = 100
MAX_VALUE_CHARS = 256
MEMBER_FILTER = re.compile(r'members\[value eq "([^"\\]{1,128})"\]', re.IGNORECASE)
# A user's kept attributes by their lower-case path, as the dataclass names them.
USER_FIELDS = {
    "username": "user_name",
    "externalid": "external_id",
    "displayname": "display_name",
    "name.givenname": "given_name",
    "name.familyname": "family_name",
    "active": "active",
}


def operations(body: Any) -> list[dict[str, Any]]:
    """The operations of a PatchOp body; ScimProblem 400 if it is none."""
    if not isinstance(body, dict) or PATCH_SCHEMA not in (body.get("schemas") or []):
        raise invalid_value(f"a PATCH body is a {PATCH_SCHEMA} message")
    found = body.get("Operations")
    if not isinstance(found, list) or not found or len(found) > MAX_OPERATIONS:
        raise invalid_value(f"Operations: 1 to {MAX_OPERATIONS} operations")
    if not all(isinstance(each, dict) for each in found):
        raise invalid_value("Operations: each operation is an object")
    return found


def _op(operation: dict[str, Any]) -> str:
    op = str(operation.get("op", "")).lower()
    if op not in ("add", "replace", "remove"):
        raise invalid_value("op: one of add, replace, remove")
    return op


def _path(operation: dict[str, Any], schema: str) -> str:
    path = operation.get("path")
    if path is None:
        return ""
    if not isinstance(path, str) or len(path) > MAX_VALUE_CHARS:
        raise ScimProblem(400, "path: not an attribute path", "invalidPath")
    return path.removeprefix(f"{schema}:").strip()


def boolean(value: Any, name: str) -> bool:
    """A SCIM boolean, or Entra's "True"/"False" string for one."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise invalid_value(f"{name}: true or false")


def text(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_VALUE_CHARS or not value.isprintable():
        raise invalid_value(f"{name}: a string of at most {MAX_VALUE_CHARS} printable characters")
    return value.strip()


def _user_values(path: str, value: Any) -> dict[str, Any]:
    """The attributes one operation sets: {path: value}, or a value object's (its `name` too)."""
    if path:
        return {path.lower(): value}
    if not isinstance(value, dict):
        raise invalid_value("value: an object of attributes when no path is given")
    found: dict[str, Any] = {}
    for name, each in value.items():
        key = str(name).removeprefix(f"{USER_SCHEMA}:").lower()
        if key == "name" and isinstance(each, dict):
            found.update({f"name.{str(part).lower()}": part_value for part, part_value in each.items()})
        else:
            found[key] = each
    return found


def patched_user(user: ProvisionedUser, body: Any, now: datetime) -> ProvisionedUser:
    """`user` as the PatchOp body changes it."""
    changes: dict[str, Any] = {}
    for operation in operations(body):
        op, path = _op(operation), _path(operation, USER_SCHEMA)
        if op == "remove":
            field = USER_FIELDS.get(path.lower())
            if field in ("user_name", "active"):
                raise ScimProblem(400, f"{path} cannot be removed", "mutability")
            if field is not None:
                changes[field] = ""
            continue
        for name, value in _user_values(path, operation.get("value")).items():
            field = USER_FIELDS.get(name)
            if field == "active":
                changes[field] = boolean(value, "active")
            elif field is not None:
                changes[field] = text(value, name)
    if "user_name" in changes:
        changes["user_name"] = checked_user_name(changes["user_name"])
    return replace(user, **changes, modified_at=now)


def checked_user_name(value: Any) -> str:
    """A userName, lower case: the person is found by it among the members' sign-in addresses
    (their email), so an identity provider sends the email there (Okta's login, Entra's UPN)."""
    name = text(value, "userName").lower()
    if not name:
        raise invalid_value("userName: required")
    return name


def _member_ids(value: Any) -> set[str]:
    if not isinstance(value, list) or not all(isinstance(each, dict) for each in value):
        raise invalid_value("members: a list of objects with a value")
    return {text(each.get("value"), "members.value") for each in value}


def patched_group(group: ProvisionedGroup, body: Any, now: datetime) -> ProvisionedGroup:
    """`group` as the PatchOp body changes it: its name, external id, members."""
    members, name, external_id = set(group.members), group.display_name, group.external_id
    for operation in operations(body):
        op, path = _op(operation), _path(operation, GROUP_SCHEMA)
        value = operation.get("value")
        if by_filter := MEMBER_FILTER.fullmatch(path):
            if op != "remove":
                raise ScimProblem(400, "members[value eq …] is only removed", "invalidPath")
            members.discard(by_filter.group(1))
        elif path.lower() == "members":
            if op == "remove":
                members = members - _member_ids(value) if value is not None else set()
            elif op == "add":
                members |= _member_ids(value)
            else:
                members = _member_ids(value)
        elif op == "remove":
            raise ScimProblem(400, f"{path or 'the group'} cannot be removed", "noTarget")
        else:
            values = {path.lower(): value} if path else value if isinstance(value, dict) else None
            if values is None:
                raise invalid_value("value: an object of attributes when no path is given")
            for key, each in values.items():
                if key.lower() == "displayname":
                    name = text(each, "displayName")
                elif key.lower() == "externalid":
                    external_id = text(each, "externalId")
                elif key.lower() == "members":
                    members = _member_ids(each) if op == "replace" else members | _member_ids(each)
    if not name:
        raise invalid_value("displayName: required")
    return replace(group, display_name=name, external_id=external_id, members=frozenset(members), modified_at=now)
