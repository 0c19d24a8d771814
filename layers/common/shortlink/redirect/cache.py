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

Each entry also carries what a `prepare` function made of its link when it was cached: the
redirect keeps a plain link's ready-made response there, and reads the entries table itself on
its hot path (functions/redirect/app.py), where even a method call shows in the benchmark.
"""

import time
from collections.abc import Callable
from typing import Any

from shortlink.links.model import Link, LinkSource, is_possible_key


class Entry:
    """A cached code."""

    __slots__ = ("fresh_until", "link", "prepared", "used")

    def __init__(self, fresh_until: float, link: Link | None, prepared: Any) -> None:
        self.fresh_until = fresh_until  # by the cache's clock
        self.link = link  # None: the code is unknown
        self.prepared = prepared  # what the cache's `prepare` made of the link
        self.used = False  # hit since it was loaded or last spared by an eviction sweep


class CachedLinks:
    """A LinkSource in front of another one."""

    def __init__(
        self,
        source: LinkSource,
        max_entries: int,
        ttl_seconds: float,
        negative_ttl_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        prepare: Callable[[Link | None], Any] = lambda link: None,
        entries: dict[str, Entry] | None = None,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be positive")
        self._source = source
        self._max_entries = max_entries
        self._ttl = ttl_seconds
        self._negative_ttl = negative_ttl_seconds
        self._clock = clock
        self._prepare = prepare
        # Oldest first. Read it and mark hits freely; only `get` adds and removes. A table handed
        # in (services keeps one per process, for the redirect's hot path) starts empty too.
        self.entries: dict[str, Entry] = {} if entries is None else entries
        self.entries.clear()
        self.last_was_hit = False  # what the redirect reports as CacheHits / CacheMisses

    def get(self, code: str) -> Link | None:
        # A hit is one dict lookup: only well-formed codes ever enter the cache, so the
        # pattern check is paid on misses alone.
        now = self._clock()
        entry = self.entries.get(code)
        if entry is not None and entry.fresh_until > now:
            entry.used = True
            self.last_was_hit = True
            return entry.link
        self.last_was_hit = False
        if not is_possible_key(code):
            return None
        link = self._source.get(code)
        ttl = self._ttl if link is not None else self._negative_ttl
        self.entries.pop(code, None)  # a reloaded code goes behind the others
        self.entries[code] = Entry(now + ttl, link, self._prepare(link))
        self._evict()
        return link

    def _evict(self) -> None:
        entries = self.entries
        while len(entries) > self._max_entries:
            oldest = next(iter(entries))
            entry = entries.pop(oldest)
            if entry.used:  # a second chance, once per use
                entry.used = False
                entries[oldest] = entry

    def __len__(self) -> int:
        return len(self.entries)
