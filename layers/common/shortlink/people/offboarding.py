"""Off-boarding: a person's membership ends (an owner or admin removes them, or they leave), and
with it every key of the workspace that acts for them (made by them, or by a key they made).
Their other workspaces, and the keys there, stay as they are."""

from dataclasses import dataclass
from datetime import datetime

from shortlink.access.api_keys import MadeKeys
from shortlink.people.members import remove_member
from shortlink.people.model import Membership
from shortlink.people.ports import Memberships
from shortlink.people.roles import scopes_of


@dataclass(frozen=True)
class Departure:
    """A membership ended, and the ids of the keys that ended with it."""

    membership: Membership
    revoked_keys: list[str]


def remove_with_keys(
    memberships: Memberships,
    keys: MadeKeys,
    manager_scopes: frozenset[str],
    workspace_id: str,
    subject: str,
    now: datetime,
) -> Departure:
    """Remove the member `subject` (shortlink.people.members.remove_member's checks) and revoke the
    workspace's keys that act for them."""
    removed = remove_member(memberships, manager_scopes, workspace_id, subject, now)
    return Departure(removed, keys.revoke_made_by(workspace_id, subject))


def leave(memberships: Memberships, keys: MadeKeys, workspace_id: str, subject: str, now: datetime) -> Departure:
    """`subject` leaves `workspace_id`, whatever their role but never as its last owner
    (LastOwner), and the workspace's keys that act for them end. As after a removal, only a new
    invitation brings them back."""
    # As an owner would remove them: remove_member keeps the workspace an owner.
    left = remove_member(memberships, scopes_of("owner"), workspace_id, subject, now)
    return Departure(left, keys.revoke_made_by(workspace_id, subject))
