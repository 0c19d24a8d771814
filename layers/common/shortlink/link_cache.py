"""A per-execution-environment cache of links in front of the repository.

LRU-bounded, with a TTL for found links (the documented maximum staleness after an edit or a
delete) and a shorter TTL for unknown codes (a negative cache: enumeration and cache-penetration
defence without hiding a just-created link for long). A code we could never have issued is
neither looked up nor cached, so junk cannot evict real links.
"""

import time
from collections import OrderedDict
from collections.abc import Callable

from shortlink.links import Link, LinkSource, is_possible_code


class CachedLinks:
    """A LinkSource in front of another one."""

    def __init__(
        self,
        source: LinkSource,
        max_entries: int,
        ttl_seconds: float,
        negative_ttl_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be positive")
        self._source = source
        self._max_entries = max_entries
        self._ttl = ttl_seconds
        self._negative_ttl = negative_ttl_seconds
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, Link | None]] = OrderedDict()
        self.last_was_hit = False  # what the redirect reports as CacheHits / CacheMisses

    def get(self, code: str) -> Link | None:
        # A hit is one dict lookup: only well-formed codes ever enter the cache, so the
        # pattern check is paid on misses alone.
        now = self._clock()
        entry = self._entries.get(code)
        if entry is not None and entry[0] > now:
            self._entries.move_to_end(code)
            self.last_was_hit = True
            return entry[1]
        self.last_was_hit = False
        if not is_possible_code(code):
            return None
        link = self._source.get(code)
        self._entries[code] = (now + (self._ttl if link is not None else self._negative_ttl), link)
        self._entries.move_to_end(code)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
        return link

    def __len__(self) -> int:
        return len(self._entries)
