"""Adding, changing and removing members: a member manages only roles they could hold (see
shortlink.people.roles), and a workspace always keeps an owner."""

from datetime import UTC, datetime

from shortlink.people.errors import InvalidMemberOption, LastOwner, MemberNotFound, MemberRemoved
from shortlink.people.model import Membership, Person, Role, plausible_id, role_named
from shortlink.people.ports import Memberships
from shortlink.people.roles import require_manage

MAX_EMAIL_CHARS = 254


def checked_role(text: str) -> Role:
    role = role_named(text)
    if role is None:
        raise InvalidMemberOption("role", "role: one of owner, admin, editor, viewer")
    return role


def checked_email(text: str) -> str:
    """An address as the pool keys people by it: trimmed, lower case; InvalidMemberOption unless
    it has one @ with something on each side."""
    email = text.strip().lower()
    local, at, domain = email.partition("@")
    if not at or not local or "." not in domain or "@" in domain or len(email) > MAX_EMAIL_CHARS:
        raise InvalidMemberOption("email", "email: an address such as name@example.com")
    if not email.isprintable() or any(char.isspace() for char in email):
        raise InvalidMemberOption("email", "email: an address such as name@example.com")
    return email


def join_on_first_sign_in(
    memberships: Memberships,
    person: Person,
    workspace_id: str,
    role: Role,
    now: datetime | None = None,
    added_by: str = "",
    invited_at: datetime | None = None,
) -> Membership | None:
    """Make `person` a member of `workspace_id` as `role` if they are none yet (single sign-on's
    just-in-time membership, an accepted invitation); the new membership, or None if they
    already were a member (their role stays as it is). A person an owner or admin removed is
    refused (MemberRemoved) unless an invitation made after the removal (`invited_at`) brings them."""
    if memberships.role_in(workspace_id, person.subject) is not None:
        return None
    membership = Membership(workspace_id, person.subject, person.email, role, now or datetime.now(UTC), added_by)
    if memberships.add(membership, invited_at):
        return membership
    # The conditional write was refused: a member already (added meanwhile), or removed.
    if memberships.was_removed(workspace_id, person.subject):
        raise MemberRemoved(workspace_id)
    return None


def change_role(
    memberships: Memberships, manager_scopes: frozenset[str], workspace_id: str, subject: str, role: Role
) -> Membership:
    """Give a member another role: the manager must be able to manage both the old and the new.
    The membership as it was before."""
    before = memberships.membership_in(workspace_id, subject, fresh=True) if plausible_id(subject) else None
    if before is None:
        raise MemberNotFound(subject)
    current = before.role
    for touched in (current, role):
        require_manage(manager_scopes, touched)
    if current == "owner" and role != "owner":
        _keep_an_owner(memberships, workspace_id, subject)
    if not memberships.set_role(workspace_id, subject, role):
        raise MemberNotFound(subject)
    return before


def remove_member(
    memberships: Memberships,
    manager_scopes: frozenset[str],
    workspace_id: str,
    subject: str,
    now: datetime | None = None,
) -> Membership:
    """End a membership: the removed person's console sessions of this workspace end at their
    next request (each request asks for the membership), and their other ones stay. The removal
    is kept: single sign-on does not make them a member again, an invitation made later does."""
    member = memberships.membership_in(workspace_id, subject) if plausible_id(subject) else None
    if member is None:
        raise MemberNotFound(subject)
    require_manage(manager_scopes, member.role)
    if member.role == "owner":
        _keep_an_owner(memberships, workspace_id, subject)
    if not memberships.remove(workspace_id, subject, now or datetime.now(UTC)):
        raise MemberNotFound(subject)
    return member


def _keep_an_owner(memberships: Memberships, workspace_id: str, leaving: str) -> None:
    owners = [each for each in memberships.members_of(workspace_id) if each.role == "owner"]
    if all(each.subject == leaving for each in owners):
        raise LastOwner(workspace_id)
