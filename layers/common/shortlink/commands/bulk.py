"""Bulk changes: one change to up to MAX_BULK_CHANGES links of a workspace (MAX_BULK_MOVES moved), each through the link
commands (its audit entry, its `link.*` event), all written in one transaction or nothing.

The commands run against a batch: it reads the selected links once, stages each link's write
and its entry instead of writing them, and commits them together. A link its own command refuses
(not found, an expiry before its valid_from, too many tags) is reported with the others that
are; a link changed meanwhile fails the transaction's condition and is reported the same way."""

from collections.abc import Sequence
from typing import Protocol

from shortlink.audit.trail import AuditTrail
from shortlink.commands.links import LinkCommands, LinkWritten
from shortlink.errors import ShortlinkError
from shortlink.links.bulk import (
    MAX_BULK_CHANGES,
    MAX_BULK_MOVES,
    BulkChange,
    BulkRefused,
    LinkRefusal,
    checked_selection,
)
from shortlink.links.ports import LinkMoves, LinkRepository
from shortlink.links.use_cases import owned_link


class LinkBatch(LinkRepository, LinkMoves, Protocol):
    def read(self, keys: Sequence[str]) -> None:
        """Read the links of `keys` at once (strongly consistent): what `get` then answers."""

    def entries(self) -> AuditTrail:
        """The audit trail whose entries are staged in the batch's transaction."""

    def commit(self) -> None:
        """Write what was staged in one transaction; BulkRefused naming each link whose
        condition failed (changed or removed meanwhile), nothing written."""


def change_links(
    commands: LinkCommands, batch: LinkBatch, keys: Sequence[str], change: BulkChange
) -> list[LinkWritten]:
    """Make `change` to the links of `keys` (`commands` writing through `batch`): all of them, in
    order, or BulkRefused with each link refused and why."""
    keys = checked_selection(list(keys), MAX_BULK_MOVES if change.action == "move" else MAX_BULK_CHANGES)
    batch.read(keys)
    written: list[LinkWritten] = []
    refusals: list[LinkRefusal] = []
    with commands.all_or_nothing(batch.commit):
        for key in keys:
            try:
                written.append(_changed(commands, batch, key, change))
            except ShortlinkError as error:
                refusals.append(LinkRefusal(key, error))
        if refusals:
            raise BulkRefused(refusals)
    return written


def _changed(commands: LinkCommands, batch: LinkBatch, key: str, change: BulkChange) -> LinkWritten:
    if change.action == "delete":
        return commands.delete(key)
    if change.action == "restore":
        return commands.restore(key)
    if change.action == "move":
        assert change.domain is not None  # a move names its domain (BulkChange)
        return commands.move(key, change.domain, batch)
    return commands.edit(key, change.of(owned_link(key, commands.owner, batch)))
