"""What provisioning does to the workspace: a user's record kept, and its person's access made to
match it. An active user's member gets the role their groups grant (owners are left as they are);
a deactivated or deleted user's member is removed at once with the keys that act for them, and
every console session and access token of theirs ends (the very next request is refused). A
reactivated user's member comes back. Nothing is written when a step is refused."""

from dataclasses import dataclass, replace
from datetime import datetime

from shortlink.access.api_keys import MadeKeys
from shortlink.people.errors import LastOwner, MemberRemoved
from shortlink.people.model import Membership, Role
from shortlink.people.offboarding import remove_with_keys
from shortlink.people.ports import Memberships, PersonSessions
from shortlink.people.roles import scopes_of
from shortlink.scim.errors import ScimProblem, not_found
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser, role_from_groups
from shortlink.scim.ports import ProvisionedGroups, ProvisionedUsers

# A deactivation removes as an owner would (so a departing owner goes too), never the last owner.
MANAGER_SCOPES = scopes_of("owner")


@dataclass(frozen=True)
class Provisioning:
    """The stores one workspace's provisioning reads and writes."""

    users: ProvisionedUsers
    groups: ProvisionedGroups
    memberships: Memberships
    keys: MadeKeys
    sessions: PersonSessions
    added_by: str  # the audit label of the provisioning token


@dataclass(frozen=True)
class Change:
    """What provisioning did to a member, for the audit log: an action and its subject."""

    action: str
    subject: str


def _members_named(stores: Provisioning, user: ProvisionedUser) -> list[Membership]:
    return [each for each in stores.memberships.members_of(user.workspace_id) if each.email == user.user_name]


def _end_access(stores: Provisioning, user: ProvisionedUser, now: datetime) -> tuple[ProvisionedUser, list[Change]]:
    removed, changes = list(user.removed_subjects), []
    for member in _members_named(stores, user):
        try:
            remove_with_keys(stores.memberships, stores.keys, MANAGER_SCOPES, user.workspace_id, member.subject, now)
        except LastOwner:
            raise ScimProblem(
                409, f"{user.user_name} is the workspace's last owner: make another owner first"
            ) from None
        stores.sessions.end_sessions(member.subject, now)
        removed.append(member.subject)
        changes.append(Change("member.removed", member.subject))
    return replace(user, removed_subjects=tuple(dict.fromkeys(removed))), changes


def _grant(stores: Provisioning, user: ProvisionedUser, now: datetime) -> tuple[ProvisionedUser, list[Change]]:
    role, changes = role_from_groups(user.scim_id, stores.groups.of_workspace(user.workspace_id)), []
    for subject in user.removed_subjects:  # a reactivation: an invitation-like return
        back = Membership(user.workspace_id, subject, user.user_name, role, now, stores.added_by)
        if stores.memberships.add(back, invited_at=now):
            changes.append(Change("member.joined", subject))
    for member in _members_named(stores, user):
        if member.role not in ("owner", role) and stores.memberships.set_role(user.workspace_id, member.subject, role):
            changes.append(Change("member.role_changed", member.subject))
    return replace(user, removed_subjects=()), changes


def settled(stores: Provisioning, user: ProvisionedUser, now: datetime) -> tuple[ProvisionedUser, list[Change]]:
    """The member's access made to match `user`, and `user` as it is then to be stored."""
    return _end_access(stores, user, now) if not user.active else _grant(stores, user, now)


def create_user(stores: Provisioning, user: ProvisionedUser, now: datetime) -> tuple[ProvisionedUser, list[Change]]:
    """Keep a new user (409 uniqueness if its userName is taken) and settle its member."""
    if not stores.users.add(user):
        raise ScimProblem(409, f"userName {user.user_name} is provisioned already", "uniqueness")
    try:
        stored, changes = settled(stores, user, now)
    except ScimProblem:  # created deactivated for the last owner: nothing is kept
        stores.users.delete(user)
        raise
    if stored != user:
        stores.users.replace(user, stored)
    return stored, changes


def change_user(
    stores: Provisioning, before: ProvisionedUser, after: ProvisionedUser, now: datetime
) -> tuple[ProvisionedUser, list[Change]]:
    """Keep `after` over `before` (PUT or PATCH) and settle its member."""
    if after.user_name != before.user_name and before.active:
        # The old address's member ends with it: a new address is another person of the pool.
        _, ended = _end_access(stores, before, now)
    else:
        ended = []
    stored, changes = settled(stores, after, now)
    if not stores.users.replace(before, stored):
        raise ScimProblem(409, f"userName {after.user_name} is provisioned already", "uniqueness")
    return stored, ended + changes


def delete_user(stores: Provisioning, workspace_id: str, scim_id: str, now: datetime) -> list[Change]:
    """Deprovision: the member's access ends, the user leaves its groups and is forgotten."""
    user = stores.users.get(workspace_id, scim_id)
    if user is None:
        raise not_found("User", scim_id)
    _, changes = _end_access(stores, user, now)
    for group in stores.groups.of_workspace(workspace_id):
        if scim_id in group.members:
            stores.groups.put(replace(group, members=group.members - {scim_id}, modified_at=now))
    stores.users.delete(user)
    return changes


def regroup(
    stores: Provisioning, before: ProvisionedGroup | None, after: ProvisionedGroup | None, now: datetime
) -> list[Change]:
    """Store a group's change (None: created or deleted) and settle the roles of the users whose
    groups it changed."""
    known = after.members if after is not None else frozenset()
    either = after or before
    workspace = either.workspace_id if either is not None else ""
    if unknown := sorted(scim_id for scim_id in known if stores.users.get(workspace, scim_id) is None):
        raise ScimProblem(400, f"members: no User {unknown[0][:64]!r} in this workspace", "invalidValue")
    if after is not None:
        stores.groups.put(after)
    elif before is not None:
        stores.groups.delete(before)
    touched = (before.members if before else frozenset()) | known
    changes: list[Change] = []
    for scim_id in sorted(touched):
        user = stores.users.get(workspace, scim_id)
        if user is not None and user.active:
            changes.extend(settled(stores, user, now)[1])
    return changes


def arriving_role(
    users: ProvisionedUsers, groups: ProvisionedGroups, workspace_id: str, email: str, default: Role
) -> Role:
    """The role of a person joining `workspace_id` at their first single sign-on: their groups'
    if the identity provider provisioned them, else `default`; MemberRemoved if it deactivated them."""
    user = next((each for each in users.of_workspace(workspace_id) if each.user_name == email), None)
    if user is None:
        return default
    if not user.active:
        raise MemberRemoved(workspace_id)
    return role_from_groups(user.scim_id, groups.of_workspace(workspace_id))
