"""In-memory implementations of the domain's ports, for unit tests."""

import threading

from shortlink.api_keys import ApiKey
from shortlink.errors import CodeTaken, SlugTaken
from shortlink.links import Link


class InMemoryCounter:
    def __init__(self) -> None:
        self.value = 0
        self.reservations = 0
        self._lock = threading.Lock()

    def reserve(self, count: int) -> int:
        with self._lock:
            self.value += count
            self.reservations += 1
            return self.value


class InMemoryLinks:
    def __init__(self) -> None:
        self.items: dict[str, Link] = {}
        self.slug_claims: dict[str, str] = {}
        self.gets = 0

    def add(self, link: Link) -> None:
        if link.code in self.items:
            raise CodeTaken(link.code)
        self.items[link.code] = link

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        if link.code in self.items or slug_key in self.slug_claims:
            raise SlugTaken(link.code)
        self.items[link.code] = link
        self.slug_claims[slug_key] = link.code

    def get(self, code: str) -> Link | None:
        self.gets += 1
        return self.items.get(code)


class InMemoryApiKeys:
    def __init__(self, keys: dict[str, ApiKey] | None = None) -> None:
        self.keys = keys or {}

    def find_by_hash(self, key_hash: str) -> ApiKey | None:
        return self.keys.get(key_hash)
