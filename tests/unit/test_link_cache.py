from datetime import UTC, datetime

import pytest

from shortlink.link_cache import CachedLinks
from shortlink.links import Link
from tests.fakes import InMemoryLinks

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def cache_over(links: InMemoryLinks, clock: FakeClock, max_entries: int = 100) -> CachedLinks:
    return CachedLinks(links, max_entries=max_entries, ttl_seconds=30, negative_ttl_seconds=5, clock=clock)


def test_a_hit_does_not_reach_the_repository():
    links, clock = InMemoryLinks(), FakeClock()
    links.add(Link("abc", "https://a.example", "o", NOW))
    cache = cache_over(links, clock)
    assert cache.get("abc") == links.items["abc"]
    assert not cache.last_was_hit
    assert cache.get("abc") == links.items["abc"]
    assert links.gets == 1
    assert cache.last_was_hit


def test_an_edit_arrives_after_the_ttl_and_not_before():
    # Given a cached link
    links, clock = InMemoryLinks(), FakeClock()
    links.add(Link("abc", "https://old.example", "o", NOW))
    cache = cache_over(links, clock)
    cache.get("abc")
    # When its destination is edited
    links.items["abc"] = Link("abc", "https://new.example", "o", NOW)
    # Then the cache may serve the old one for up to the TTL, and the new one after it
    clock.now += 29.9
    assert cache.get("abc").url == "https://old.example"  # type: ignore[union-attr]
    clock.now += 0.2
    assert cache.get("abc").url == "https://new.example"  # type: ignore[union-attr]


def test_unknown_codes_are_cached_briefly():
    links, clock = InMemoryLinks(), FakeClock()
    cache = cache_over(links, clock)
    assert cache.get("nope") is None
    assert cache.get("nope") is None
    assert links.gets == 1
    links.add(Link("nope", "https://late.example", "o", NOW))
    clock.now += 5.1
    assert cache.get("nope") is not None


def test_the_cache_is_bounded_and_forgets_the_least_recently_used():
    links, clock = InMemoryLinks(), FakeClock()
    for i in range(5):
        links.add(Link(f"c{i}", f"https://{i}.example", "o", NOW))
    cache = cache_over(links, clock, max_entries=3)
    for code in ("c0", "c1", "c2"):
        cache.get(code)
    cache.get("c0")  # c0 is now the most recent
    cache.get("c3")  # evicts c1
    assert len(cache) == 3
    before = links.gets
    cache.get("c0")
    cache.get("c1")
    assert links.gets == before + 1


def test_bounds_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        CachedLinks(InMemoryLinks(), max_entries=0, ttl_seconds=1, negative_ttl_seconds=1)


@pytest.mark.parametrize("code", ["", "a/b", "x" * 65, "x" * 5000, "ab.cd", "%2e%2e", "é"])
def test_codes_we_could_never_have_issued_are_neither_looked_up_nor_cached(code):
    links, clock = InMemoryLinks(), FakeClock()
    cache = cache_over(links, clock)
    assert cache.get(code) is None
    assert cache.get(code) is None
    assert links.gets == 0
    assert len(cache) == 0
