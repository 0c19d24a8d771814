"""The ports of workspace domains: where their claims are kept and how DNS is read."""

from datetime import datetime
from typing import Protocol

from shortlink.domains.claims import WorkspaceDomain


class DomainClaims(Protocol):
    def claim(self, domain: WorkspaceDomain) -> None:
        """Claim `domain.name` for its workspace with a conditional put; DomainTaken if a claim
        on it exists (another workspace's, or this one's)."""

    def claim_of(self, name: str) -> WorkspaceDomain | None:
        """The claim on `name` (strongly consistent), or None."""

    def of_workspace(self, workspace: str) -> list[WorkspaceDomain]:
        """The workspace's domains, by name."""

    def mark_verified(self, name: str, workspace: str, at: datetime) -> WorkspaceDomain:
        """Record that `workspace`'s claim on `name` was verified at `at`; DomainNotFound if the
        claim is not (or no longer) the workspace's."""

    def release(self, name: str, workspace: str) -> None:
        """Remove `workspace`'s claim on `name` (a conditional delete); DomainNotFound if it holds none."""


class TxtRecords(Protocol):
    def texts_at(self, name: str) -> list[str]:
        """The strings of the TXT records at `name` (none: an empty list); DnsUnavailable when
        no server answered."""
