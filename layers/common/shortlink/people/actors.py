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

    @property
    def owner(self) -> str:
        """The workspace, by the name links, keys and webhooks store it under (their `owner`)."""
        return self.workspace_id

    def allows(self, scope: str) -> bool:
        return scope in self.scopes

    @classmethod
    def of_key(cls, key: ApiKey) -> "Actor":
        return cls("key", key.key_id, key.name, key.owner, key.scopes, key.expires_at)

    @classmethod
    def of_member(cls, membership: Membership) -> "Actor":
        role = membership.role
        return cls("person", membership.subject, membership.email, membership.workspace_id, scopes_of(role), None, role)
