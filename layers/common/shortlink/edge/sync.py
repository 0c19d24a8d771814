"""The sync of the links table into the edge's KeyValueStore: each change of a link as its
stream reports it, and a periodic full reconciliation that repairs whatever drifted (a lost
batch, a store edited by hand, the capacity rule's choice after clicks moved). The plans are
shortlink.edge.store_plan's; the store and the clicks are ports, adapters implement them."""

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Protocol

from shortlink.edge.entries import edge_entry, edge_key
from shortlink.edge.store_plan import (
    STORE_BUDGET_BYTES,
    Candidate,
    EntryChange,
    Repairs,
    StoreUpdate,
    chosen_entries,
    entry_bytes,
    reconciliation,
    stream_updates,
)
from shortlink.links.model import Link


class EdgeStore(Protocol):
    def size(self) -> int:
        """The store's total size in bytes now (StorageUnavailable when it cannot be read)."""

    def apply(self, update: StoreUpdate) -> None:
        """Write one update whole, however often another writer gets in first
        (StorageUnavailable when it could not be written)."""

    def entries(self) -> dict[str, str]:
        """Every entry the store holds."""


class RecentClicks(Protocol):
    def recent_clicks(self, key: str) -> int:
        """The link's clicks of the last days: how hot it is."""


def entry_change(old: Link | None, new: Link | None, now: datetime) -> EntryChange | None:
    """The store's change after a link went from `old` to `new` (None: created, or removed by
    the table); None when neither state is one the edge answers."""
    link = new or old
    if link is None:
        return None
    value = edge_entry(new, now) if new is not None else None
    if value is None and (old is None or edge_entry(old, now) is None):
        return None
    return EntryChange(edge_key(link), value)


def push_link_changes(
    store: EdgeStore, links: Iterable[tuple[Link | None, Link | None]], now: datetime, budget: int = STORE_BUDGET_BYTES
) -> list[StoreUpdate]:
    """Write the store's changes for these (old, new) links, leaving keys first; returns the
    updates written."""
    changes = [change for old, new in links if (change := entry_change(old, new, now)) is not None]
    if not changes:
        return []
    updates = stream_updates(changes, store.size(), budget)
    for update in updates:
        store.apply(update)
    return updates


def reconcile(
    store: EdgeStore,
    links: Iterable[Link],
    pinned: Mapping[str, str],
    clicks: RecentClicks,
    now: datetime,
    budget: int = STORE_BUDGET_BYTES,
) -> Repairs:
    """Bring the store to what it should hold for every link of the table, and say what that
    repaired. Clicks are read only when the eligible links do not all fit."""
    candidates = [Candidate(edge_key(link), value) for link in links if (value := edge_entry(link, now)) is not None]
    wanted_bytes = sum(entry_bytes(key, value) for key, value in pinned.items())
    wanted_bytes += sum(entry_bytes(candidate.key, candidate.value) for candidate in candidates)
    if wanted_bytes > budget:
        for candidate in candidates:
            candidate.heat = clicks.recent_clicks(candidate.key)
    repairs = reconciliation(chosen_entries(candidates, pinned, budget), store.entries())
    for update in repairs.updates:
        store.apply(update)
    return repairs
