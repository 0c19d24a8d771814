"""A per-execution-environment cache of links in front of the repository.

Bounded, with a TTL for found links (the documented maximum staleness after an edit or a
delete) and a shorter TTL for unknown codes (a negative cache: enumeration and cache-penetration
defence without hiding a just-created link for long). A code we could never have issued is
neither looked up nor cached, so junk cannot evict real links.

Eviction is least-recently-used by the second-chance (CLOCK) method: a hit only marks its entry
as used; when the cache is full, the oldest entry goes unless it was used since it was last
spared, in which case it is unmarked and moved behind the others. A hit thus costs one flag
instead of reordering a list (which shows in the redirect's benchmark), and an entry used since
the last sweep is never the one that goes.

Each entry also keeps what a `prepare` function made of its link when it was cached: the
redirect keeps a plain link's ready-made response there. One `lookup` answers all of it (the
link, what was prepared, hit or miss); a hit returns the entry's own answer, built when it was
loaded, so it costs a clock read, a dict lookup and a flag.
"""

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from shortlink.links.keys import is_possible_key
from shortlink.links.model import Link

if TYPE_CHECKING:  # a port is only a type here: the redirect's cold start does not import it
    from shortlink.links.ports import LinkSource

Prepared = TypeVar("Prepared")


@dataclass(frozen=True, slots=True)
class Lookup(Generic[Prepared]):
    """What the cache knows of a key: its link (None: unknown), what `prepare` made of it, and
    whether it came from the cache (a hit) or from the source (a miss)."""

    link: Link | None
    prepared: Prepared | None
    hit: bool


class _Entry(Generic[Prepared]):
    __slots__ = ("fresh_until", "hit", "used")

    def __init__(self, fresh_until: float, hit: Lookup[Prepared]) -> None:
        self.fresh_until = fresh_until  # by the cache's clock
        self.hit = hit  # the answer while fresh
        self.used = False  # hit since it was loaded or last spared by an eviction sweep


class CachedLinks(Generic[Prepared]):
    """A LinkSource in front of another one."""

    # Slots: a hit reads its attributes from the object itself, not from a dict beside it.
    __slots__ = ("_clock", "_entries", "_max_entries", "_negative_ttl", "_prepare", "_source", "_ttl", "_unknown")

    def __init__(
        self,
        source: "LinkSource",
        max_entries: int,
        ttl_seconds: float,
        negative_ttl_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        prepare: Callable[[Link | None], Prepared | None] = lambda link: None,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be positive")
        self._source = source
        self._max_entries = max_entries
        self._ttl = ttl_seconds
        self._negative_ttl = negative_ttl_seconds
        self._clock = clock
        self._prepare = prepare
        self._entries: dict[str, _Entry[Prepared]] = {}  # oldest first
        self._unknown: Lookup[Prepared] = Lookup(None, None, hit=False)

    def lookup(self, key: str) -> Lookup[Prepared]:
        entry = self._entries.get(key)
        if entry is not None and entry.fresh_until > self._clock():
            entry.used = True
            return entry.hit
        # Only well-formed keys ever enter the cache, so the pattern check is paid on misses alone.
        now = self._clock()  # before the read: the TTL is never counted from after it
        if not is_possible_key(key):
            return self._unknown
        link = self._source.get(key)
        prepared = self._prepare(link)
        ttl = self._ttl if link is not None else self._negative_ttl
        self._entries.pop(key, None)  # a reloaded key goes behind the others
        self._entries[key] = _Entry(now + ttl, Lookup(link, prepared, hit=True))
        self._evict()
        return Lookup(link, prepared, hit=False)

    def get(self, key: str) -> Link | None:
        return self.lookup(key).link

    def _evict(self) -> None:
        entries = self._entries
        while len(entries) > self._max_entries:
            oldest = next(iter(entries))
            entry = entries.pop(oldest)
            if entry.used:  # a second chance, once per use
                entry.used = False
                entries[oldest] = entry

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[str]:
        """The cached keys, the next to be swept first."""
        return iter(list(self._entries))
