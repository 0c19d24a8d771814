"""Whoever made a request: an API key or a signed-in person, in the workspace they act on, with
the scopes they hold there. The API's and the console's checks, and the audit log, read this."""

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from shortlink.access.api_keys import ApiKey
from shortlink.people.model import Membership, Role
from shortlink.people.roles import scopes_of

ActorKind = Literal["key", "person"]


@dataclass(frozen=True)
class Actor:
    kind: ActorKind
    id: str  # a key's public id, or a person's subject
    label: str  # a key's name, or a person's email
    workspace_id: str
    scopes: frozenset[str]
    expires_at: datetime | None = None  # a key's expiry: what it makes ends no later
    role: Role | None = None  # a person's role in the workspace
    maker: str = ""  # the person it acts for: a member themself, or the person a key acts for
    maker_email: str = ""

    @property
    def owner(self) -> str:
        """The workspace, by the name links, keys and webhooks store it under (their `owner`)."""
        return self.workspace_id

    def allows(self, scope: str) -> bool:
        return scope in self.scopes

    @classmethod
    def of_key(cls, key: ApiKey, scopes: frozenset[str] | None = None) -> "Actor":
        """The key as an actor, with `scopes` in place of its own where its maker's role caps them
        (shortlink.people.key_access)."""
        held = key.scopes if scopes is None else scopes
        return cls("key", key.key_id, key.name, key.owner, held, key.expires_at, None, key.maker, key.maker_email)

    @classmethod
    def of_member(cls, membership: Membership) -> "Actor":
        subject, email, role = membership.subject, membership.email, membership.role
        return cls("person", subject, email, membership.workspace_id, scopes_of(role), None, role, subject, email)
