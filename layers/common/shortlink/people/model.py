"""A person, the roles a member may hold, and a membership of a workspace."""

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

Role = Literal["owner", "admin", "editor", "viewer"]
ROLES: tuple[Role, ...] = get_args(Role)  # most powerful first


@dataclass(frozen=True)
class Person:
    """Someone the user pool signed in: `subject` is the pool's `sub` (never reused), `email`
    the address they sign in with."""

    subject: str
    email: str


@dataclass(frozen=True)
class Membership:
    """`subject` belongs to `workspace_id` as `role`."""

    workspace_id: str
    subject: str
    email: str
    role: Role
    added_at: datetime
    added_by: str = ""  # who added them: an actor's label (an email or a key's name); empty: first sign-in
    last_active_at: datetime | None = None  # their latest request here, to the hour (ACTIVITY_STEP); None: none yet


MAX_ID_CHARS = 128  # a workspace id is a key's (12 characters), a subject the pool's sub (36)


def plausible_id(text: str) -> bool:
    """Whether `text` could name a workspace or a person (else no lookup is made: a key of
    DynamoDB holds at most 2,048 bytes, and a request must not make us ask for more)."""
    return 0 < len(text) <= MAX_ID_CHARS and text.isprintable()


def role_named(text: str) -> Role | None:
    """The role spelled `text`, or None."""
    return next((role for role in ROLES if role == text), None)


@dataclass(frozen=True)
class Invitation:
    """An invitation to join `workspace_id` as `role`, sent to `email`: taken once, by whoever
    signs in or up through its link before `expires_at`."""

    invitation_id: str  # public: names it on the members page (never its token)
    workspace_id: str
    email: str
    role: Role
    invited_by: str  # the inviter's label
    created_at: datetime
    expires_at: datetime
    # The person the inviter acted for: their authority is checked again when it is taken.
    # Empty for a key that acts for nobody (the stack's first key), and for invitations made
    # before this was kept.
    inviter_subject: str = ""
