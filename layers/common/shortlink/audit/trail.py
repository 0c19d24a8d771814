"""The port the audit log is written and read through."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from shortlink.audit.model import AuditEntry
from shortlink.audit.queries import AuditQuery


@dataclass(frozen=True)
class AuditPage:
    entries: list[AuditEntry]  # newest first
    next_cursor: str | None


class AuditTrail(Protocol):
    def add(self, entries: Sequence[AuditEntry]) -> None:
        """Append the entries (never over another); StorageUnavailable if one is not written."""

    def page(self, workspace: str, query: AuditQuery) -> AuditPage:
        """The workspace's entries the query selects, newest first, a page at a time;
        InvalidAuditQuery for a cursor this trail did not give out for this workspace and query."""
