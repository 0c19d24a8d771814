"""A workspace's claim on a domain: which workspace holds the name, the token its TXT record
must hold, and since when it is verified (shortlink.domains.workspace_domains)."""

import secrets
from dataclasses import dataclass
from datetime import datetime

from shortlink.domains.names import record_name

RECORD_PREFIX = "shortlink-verification="


@dataclass(frozen=True)
class WorkspaceDomain:
    """A workspace's claim on a domain name (canonical: shortlink.domains.names)."""

    name: str
    workspace: str
    token: str
    added_at: datetime
    verified_at: datetime | None = None

    @property
    def verified(self) -> bool:
        return self.verified_at is not None

    @property
    def record_name(self) -> str:
        """Where the owner publishes the TXT record."""
        return record_name(self.name)

    @property
    def record_value(self) -> str:
        """What the TXT record holds."""
        return RECORD_PREFIX + self.token


def new_domain(name: str, workspace: str, now: datetime) -> WorkspaceDomain:
    """A new, unverified claim of `workspace` on `name`, with a fresh token (128 random bits)."""
    return WorkspaceDomain(name, workspace, secrets.token_urlsafe(16), now)
