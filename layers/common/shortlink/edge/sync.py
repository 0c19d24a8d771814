"""The sync of the links table into the edge's KeyValueStore: each change of a link as its
stream reports it, and a periodic full reconciliation that repairs whatever drifted (a lost
batch, a store edited by hand, the capacity rule's choice after clicks moved). The plans are
shortlink.edge.store_plan's; the store and the clicks are ports, adapters implement them."""

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from shortlink.domains.model import ShortDomains
from shortlink.edge.entries import edge_item, edge_key
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


def entry_change(old: Link | None, new: Link | None, domains: ShortDomains, now: datetime) -> EntryChange | None:
    """The store's change after a link went from `old` to `new` (None: created, or removed by
    the table); None when neither state is one the edge answers."""
    link = new or old
    key = None if link is None else edge_key(link, domains)
    if key is None:
        return None
    item = edge_item(new, domains, now) if new is not None else None
    if item is None and (old is None or edge_item(old, domains, now) is None):
        return None
    return EntryChange(key, None if item is None else item[1])


def push_link_changes(
    store: EdgeStore,
    links: Iterable[tuple[Link | None, Link | None]],
    domains: ShortDomains,
    now: datetime,
    budget: int = STORE_BUDGET_BYTES,
) -> list[StoreUpdate]:
    """Write the store's changes for these (old, new) links, leaving keys first; returns the
    updates written."""
    changes = [change for old, new in links if (change := entry_change(old, new, domains, now)) is not None]
    if not changes:
        return []
    updates = stream_updates(changes, store.size(), budget)
    for update in updates:
        store.apply(update)
    return updates


def reconcile(
    store: EdgeStore,
    links: Iterable[Link],
    domains: ShortDomains,
    clicks: RecentClicks,
    now: datetime,
    budget: int = STORE_BUDGET_BYTES,
) -> Repairs:
    """Bring the store to what it should hold for every link of the table, and say what that
    repaired (keys of an earlier layout leave as extra). Clicks are read only when the eligible
    links do not all fit."""
    eligible = [(link, item) for link in links if (item := edge_item(link, domains, now)) is not None]
    candidates = [Candidate(*item) for _, item in eligible]
    if sum(entry_bytes(candidate.key, candidate.value) for candidate in candidates) > budget:
        for (link, _), candidate in zip(eligible, candidates, strict=True):
            candidate.heat = clicks.recent_clicks(link.key)
    repairs = reconciliation(chosen_entries(candidates, budget), store.entries())
    for update in repairs.updates:
        store.apply(update)
    return repairs
