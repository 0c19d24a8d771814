from datetime import UTC, datetime

import pytest

from shortlink.links.model import Link
from shortlink.redirect.cache import CachedLinks, Lookup
from tests.fakes import InMemoryLinks

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def cache_over(links: InMemoryLinks, clock: FakeClock, max_entries: int = 100) -> CachedLinks[str]:
    return CachedLinks(links, max_entries=max_entries, ttl_seconds=30, negative_ttl_seconds=5, clock=clock)


def test_a_hit_does_not_reach_the_repository():
    links, clock = InMemoryLinks(), FakeClock()
    links.add(Link("abc", "https://a.example", "o", NOW))
    cache = cache_over(links, clock)
    assert cache.lookup("abc") == Lookup(links.items["abc"], None, hit=False)
    assert cache.lookup("abc") == Lookup(links.items["abc"], None, hit=True)
    assert cache.get("abc") == links.items["abc"]
    assert links.gets == 1


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


def full_cache(links_known: int, max_entries: int) -> tuple[InMemoryLinks, FakeClock, CachedLinks[str]]:
    """Links c0, c1... of which the first `max_entries` are cached, in order."""
    links, clock = InMemoryLinks(), FakeClock()
    for i in range(links_known):
        links.add(Link(f"c{i}", f"https://{i}.example", "o", NOW))
    cache = cache_over(links, clock, max_entries=max_entries)
    for i in range(max_entries):
        cache.get(f"c{i}")
    return links, clock, cache


def test_the_cache_is_bounded_and_forgets_the_least_recently_used():
    links, _, cache = full_cache(5, max_entries=3)
    cache.get("c0")  # c0 is now the most recent
    cache.get("c3")  # evicts c1
    assert len(cache) == 3
    before = links.gets
    cache.get("c0")
    cache.get("c1")
    assert links.gets == before + 1


def test_an_entry_used_since_the_last_sweep_is_never_the_one_evicted():
    _, _, cache = full_cache(10, max_entries=4)
    # A hit marks its entry (a flag, no reordering)
    cache.lookup("c0")
    cache.get("c2")
    cache.get("c4")  # c0, the oldest, was used: spared and moved back; c1 goes
    assert list(cache) == ["c2", "c3", "c4", "c0"]
    cache.get("c5")  # c2 was used: spared; c3 goes
    assert list(cache) == ["c4", "c0", "c5", "c2"]
    cache.get("c6")  # c4 goes, then c0 (spared once, unused since)
    cache.get("c7")
    assert list(cache) == ["c5", "c2", "c6", "c7"]


def test_a_reloaded_code_goes_behind_the_others():
    _, clock, cache = full_cache(6, max_entries=3)
    cache.get("c0")  # a hit: marked used
    clock.now += 31  # all stale
    cache.get("c0")
    assert list(cache) == ["c1", "c2", "c0"]
    # The reloaded entry starts unused: once the oldest, it goes like any other
    for code in ("c3", "c4", "c5"):
        cache.get(code)
    assert list(cache) == ["c3", "c4", "c5"]


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


def test_each_entry_keeps_what_prepare_made_of_its_link_once_per_load():
    links, clock = InMemoryLinks(), FakeClock()
    links.add(Link("abc", "https://a.example", "o", NOW))
    prepared: list[Link | None] = []

    def prepare(link: Link | None) -> str | None:
        prepared.append(link)
        return None if link is None else f"ready:{link.url}"

    cache = CachedLinks(links, max_entries=10, ttl_seconds=30, negative_ttl_seconds=5, clock=clock, prepare=prepare)
    assert cache.lookup("abc") == Lookup(links.items["abc"], "ready:https://a.example", hit=False)
    assert cache.lookup("abc") == Lookup(links.items["abc"], "ready:https://a.example", hit=True)
    assert cache.lookup("nope") == Lookup(None, None, hit=False)
    assert cache.lookup("nope") == Lookup(None, None, hit=True)
    # Fresh for the TTL of each (30 s found, 5 s unknown), then loaded and prepared again
    clock.now += 5.1
    assert cache.lookup("abc").hit
    assert not cache.lookup("nope").hit
    assert prepared == [links.items["abc"], None, None]
