"""Bulk link work's pure parts: the links a filter selects (newest first, bounded), the bounds of
a selection, and the edit a retag or an expiry makes of each link (shortlink.links.bulk)."""

from datetime import UTC, datetime, timedelta

import pytest

from shortlink.errors import InvalidLinkOption
from shortlink.links.bulk import (
    MAX_BULK_CHANGES,
    MAX_FILTER_READS,
    BulkChange,
    LinkFilter,
    checked_selection,
    selected_keys,
)
from shortlink.links.model import Link, LinkChanges
from tests.fakes import InMemoryLinks

START = datetime(2026, 3, 1, tzinfo=UTC)


def links_of(count: int, owner: str = "me", **fields) -> InMemoryLinks:
    links = InMemoryLinks()
    for number in range(count):
        at = START + timedelta(hours=number)
        links.add(Link(f"c{number}", f"https://example.com/{number}", owner, at, **fields))
    return links


def test_a_filter_selects_by_every_part_it_names():
    links = links_of(6)
    links.add(Link("sale1", "https://shop.example/SALE", "me", START, tags=("spring",), title="Spring"))
    links.add(
        Link("sale2", "https://example.com/x", "me", START, tags=("spring",), title="Big Sale", domain="go.sho.rt")
    )
    links.add(Link("theirs", "https://example.com/sale", "them", START, tags=("spring",)))
    assert sorted(selected_keys(links, "me", LinkFilter(search="sale"), deleted=False)) == ["go.sho.rt/sale2", "sale1"]
    assert selected_keys(links, "me", LinkFilter(tag="spring", domain=""), deleted=False) == ["sale1"]
    within = LinkFilter(created_from=START + timedelta(hours=2), created_before=START + timedelta(hours=4))
    assert selected_keys(links, "me", within, deleted=False) == ["c3", "c2"]  # newest first
    assert selected_keys(links, "me", LinkFilter(tag="spring"), deleted=True) == []  # none deleted


def test_a_filter_stops_reading_at_its_created_from(monkeypatch):
    links = links_of(300)
    pages = []
    list_page = links.list_for_owner

    def counted(*args, **kwargs):
        pages.append(args)
        return list_page(*args, **kwargs)

    monkeypatch.setattr(links, "list_for_owner", counted)
    recent = LinkFilter(created_from=START + timedelta(hours=290))
    assert len(selected_keys(links, "me", recent, deleted=False)) == 10
    assert len(pages) == 1  # of three: the older links are never read


def test_more_matches_than_a_bulk_change_takes_are_refused_naming_the_bound():
    with pytest.raises(InvalidLinkOption, match=f"more than {MAX_BULK_CHANGES} links match the filter"):
        selected_keys(links_of(MAX_BULK_CHANGES + 1), "me", LinkFilter(search="c"), deleted=False)
    assert len(selected_keys(links_of(MAX_BULK_CHANGES), "me", LinkFilter(search="c"), deleted=False)) == 50


def test_a_search_reads_a_bounded_number_of_links():
    with pytest.raises(InvalidLinkOption, match=f"reads at most {MAX_FILTER_READS} links"):
        selected_keys(links_of(MAX_FILTER_READS + 1), "me", LinkFilter(search="no such text"), deleted=False)


def test_a_selection_is_each_link_once_and_bounded():
    assert checked_selection(["a", "b", "a"]) == ["a", "b"]
    with pytest.raises(InvalidLinkOption, match="select at least one link"):
        checked_selection([])
    with pytest.raises(InvalidLinkOption, match=f"51 links selected: a bulk change takes at most {MAX_BULK_CHANGES}"):
        checked_selection([f"c{n}" for n in range(51)])


def test_a_retag_keeps_the_order_adds_once_and_refuses_too_many_tags():
    link = Link("c", "https://example.com", "me", START, tags=("a", "b", "c"))
    assert BulkChange("retag", add_tags=("d", "a", "d"), remove_tags=("b",)).of(link) == LinkChanges(
        tags=("a", "c", "d")
    )
    with pytest.raises(InvalidLinkOption, match="at most 10 tags"):
        BulkChange("retag", add_tags=tuple(f"t{n}" for n in range(8))).of(link)


def test_an_expiry_is_set_or_cleared():
    link = Link("c", "https://example.com", "me", START)
    later = START + timedelta(days=30)
    assert BulkChange("set_expiry", expires_at=later).of(link) == LinkChanges(expires_at=later)
    assert BulkChange("clear_expiry").of(link).cleared == frozenset({"expires_at"})
