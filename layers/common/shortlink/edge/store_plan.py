"""What the edge's KeyValueStore should hold, and the updates that take it there, within
CloudFront's limits: no AWS here, only the plan (shortlink.edge.sync carries it out).

The capacity rule: the store holds every eligible link while they fit in STORE_BUDGET_BYTES
(90 % of the store's 5 MB, the rest is headroom for edits between reconciliations). A new or
edited link enters at once while there is room; when there is none, its key leaves the store (the
origin answers it, never a stale entry) and the next reconciliation keeps the hottest eligible
links by recent clicks, the coldest leaving first.

Deletes go before puts, in the stream's batches and in a reconciliation, and puts that shrink an
entry before those that grow one: at no moment of a plan does the store hold more than the
larger of what it held before and the budget.
"""

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from shortlink.edge.entries import MAX_KEY_BYTES, MAX_VALUE_BYTES

# CloudFront KeyValueStore's quotas on a whole store and on one write (Developer Guide, "Quotas").
MAX_STORE_BYTES = 5 * 1024 * 1024
MAX_KEYS_PER_UPDATE = 50  # puts and deletes of one UpdateKeys call together
STORE_BUDGET_BYTES = MAX_STORE_BYTES * 9 // 10


def entry_bytes(key: str, value: str) -> int:
    """What an entry counts towards the store's size (its key and value in UTF-8)."""
    return len(key.encode()) + len(value.encode())


def fits_limits(key: str, value: str) -> bool:
    return 0 < len(key.encode()) <= MAX_KEY_BYTES and len(value.encode()) <= MAX_VALUE_BYTES


@dataclass(frozen=True)
class EntryChange:
    """A key's wanted state after a link changed: its entry, or None when it must leave."""

    key: str
    value: str | None


@dataclass(frozen=True)
class StoreUpdate:
    """One UpdateKeys call: at most MAX_KEYS_PER_UPDATE keys, none both put and deleted."""

    puts: tuple[tuple[str, str], ...] = ()
    deletes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.puts) + len(self.deletes)


@dataclass
class Candidate:
    """An eligible link's entry and how hot it is (its recent clicks)."""

    key: str
    value: str
    heat: int = 0


@dataclass
class Repairs:
    """What a reconciliation changed: entries missing, stale (another value) and extra (a key
    that should not be there, or left for room)."""

    missing: int = 0
    stale: int = 0
    extra: int = 0
    updates: list[StoreUpdate] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.missing + self.stale + self.extra


def latest_changes(changes: Iterable[EntryChange]) -> list[EntryChange]:
    """One change per key, the last (a stream's records of one key come in order)."""
    latest: dict[str, EntryChange] = {}
    for change in changes:
        latest.pop(change.key, None)
        latest[change.key] = change
    return list(latest.values())


def stream_updates(
    changes: Iterable[EntryChange], store_bytes: int, budget: int = STORE_BUDGET_BYTES
) -> list[StoreUpdate]:
    """The updates for a stream batch's changes, given the store's size now: leaving keys first;
    a put that would take the store past `budget` (counted whole: whether the key is held is not
    known) becomes a delete, so an edited link is never answered with its old entry."""
    deletes: list[str] = []
    puts: list[tuple[str, str]] = []
    room = budget - store_bytes
    for change in latest_changes(changes):
        if change.value is None or not fits_limits(change.key, change.value):
            deletes.append(change.key)
            continue
        size = entry_bytes(change.key, change.value)
        if size > room:
            deletes.append(change.key)
            continue
        room -= size
        puts.append((change.key, change.value))
    return list(batched_updates(deletes, puts))


def chosen_entries(candidates: Iterable[Candidate], budget: int = STORE_BUDGET_BYTES) -> dict[str, str]:
    """What the store should hold: the hottest candidates (ties: the shorter entry, then the key)
    while they fit in `budget`."""
    chosen: dict[str, str] = {}
    room = budget
    eligible = [candidate for candidate in candidates if fits_limits(candidate.key, candidate.value)]
    eligible.sort(key=lambda candidate: (-candidate.heat, entry_bytes(candidate.key, candidate.value), candidate.key))
    for candidate in eligible:
        size = entry_bytes(candidate.key, candidate.value)
        if candidate.key not in chosen and size <= room:
            chosen[candidate.key] = candidate.value
            room -= size
    return chosen


def reconciliation(wanted: Mapping[str, str], held: Mapping[str, str]) -> Repairs:
    """The updates that turn what the store `held` into what is `wanted`, and what they repair."""
    deletes = sorted(key for key in held if key not in wanted)
    changed = [(key, value) for key, value in wanted.items() if held.get(key) != value]
    # Shrinking entries before growing ones: the store's size then only falls, then only rises.
    changed.sort(key=lambda put: entry_bytes(*put) - (entry_bytes(put[0], held[put[0]]) if put[0] in held else 0))
    stale = sum(1 for key, _ in changed if key in held)
    return Repairs(
        missing=len(changed) - stale,
        stale=stale,
        extra=len(deletes),
        updates=list(batched_updates(deletes, changed)),
    )


def batched_updates(deletes: list[str], puts: list[tuple[str, str]]) -> Iterator[StoreUpdate]:
    """Deletes, then puts, in calls of at most MAX_KEYS_PER_UPDATE keys and in this order."""
    for start in range(0, len(deletes), MAX_KEYS_PER_UPDATE):
        yield StoreUpdate(deletes=tuple(deletes[start : start + MAX_KEYS_PER_UPDATE]))
    for start in range(0, len(puts), MAX_KEYS_PER_UPDATE):
        yield StoreUpdate(puts=tuple(puts[start : start + MAX_KEYS_PER_UPDATE]))
