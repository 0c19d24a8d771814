"""The stores people and workspaces need (adapters/dynamodb/memberships.py implements them)."""

from datetime import datetime
from typing import Protocol

from shortlink.people.model import Invitation, Membership, Role


class Memberships(Protocol):
    def of_person(self, subject: str) -> list[Membership]:
        """Every workspace `subject` belongs to, by workspace id."""

    def membership_in(self, workspace_id: str, subject: str) -> Membership | None:
        """`subject`'s membership of `workspace_id`, or None if they are no member."""

    def role_in(self, workspace_id: str, subject: str) -> Role | None:
        """The role `subject` holds in `workspace_id`, or None if they are no member."""

    def members_of(self, workspace_id: str) -> list[Membership]:
        """The workspace's members, by email."""

    def add(self, membership: Membership) -> bool:
        """Store `membership` unless the person is a member already: False then (nothing changes)."""

    def set_role(self, workspace_id: str, subject: str, role: Role) -> bool:
        """Change a member's role; False if they are no member."""

    def remove(self, workspace_id: str, subject: str) -> bool:
        """End the membership; False if there was none."""


class PersonSessions(Protocol):
    def session_generation(self, subject: str) -> int:
        """The person's session generation: a console session signed at another one has ended."""

    def end_sessions(self, subject: str) -> None:
        """Move the person's session generation on: every console session of theirs ends."""


class Invitations(Protocol):
    def add(self, token_hash: str, invitation: Invitation) -> None:
        """Store an invitation under the hash of its token."""

    def take(self, token_hash: str, now: datetime) -> Invitation | None:
        """The invitation under this hash, spent by this call (one conditional write: of two
        takers, one gets it); None if there is none, it was spent, or it has expired."""

    def pending_for(self, workspace_id: str) -> list[Invitation]:
        """The workspace's invitations neither spent nor expired."""
