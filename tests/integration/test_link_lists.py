"""The console list's reads of the links table (adapters/dynamodb/link_lists.py), on moto and on
dynalite (which refuses what DynamoDB refuses and moto lets pass): the newest links' outlines in
one projected Query of the ByOwner index, and the page's links in one BatchGetItem, in order."""

from datetime import UTC, datetime, timedelta

import pytest

from shortlink.adapters.dynamodb.link_lists import DynamoLinkLists
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.links.outlines import LinkOutline
from tests.integration.dynalite_tables import dynalite, fresh_table

TABLE = "LinksTable"
START = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)

__all__ = ["dynalite"]  # a fixture used by name


@pytest.fixture(params=["moto", "dynalite"])
def table(request, template, monkeypatch) -> str:
    """A fresh links table created from template.yaml, in moto or in dynalite."""
    fresh_table(request, template, monkeypatch, TABLE)
    return TABLE


def test_outlines_come_newest_first_bounded_and_the_pages_links_whole_in_order(table):
    # Given five links of one workspace (one on another domain, one deleted, one with a campaign)
    # and one of another workspace
    links = DynamoLinkRepository(table)
    for n in range(5):
        utm = Utm(source="news", campaign="launch") if n == 1 else None
        link = Link(f"l{n}", f"https://example.com/{n}", "ws1", START + timedelta(minutes=n), title=f"T{n}",
                    tags=("a", "b") if n == 2 else (), utm=utm, domain="go.example" if n == 3 else "",
                    deleted_at=START if n == 4 else None)  # fmt: skip
        links.add(link)
    links.add(Link("other", "https://example.com/o", "ws2", START))
    lists = DynamoLinkLists(table)
    # When the newest three are asked for, Then they come newest first, with what the list filters by
    outlines, more = lists.outlines_for_owner("ws1", 3)
    assert more
    assert outlines == [
        LinkOutline("l4", "l4", "", "T4", (), None, deleted=True),
        LinkOutline("go.example/l3", "l3", "go.example", "T3"),
        LinkOutline("l2", "l2", "", "T2", ("a", "b")),
    ]
    everything, more = lists.outlines_for_owner("ws1", 10)
    assert (len(everything), more, everything[-2].campaign) == (5, False, "launch")
    # and the page's links come whole, in the order asked, a key without a link left out
    page = lists.links_of(["l1", "go.example/l3", "gone", "l0"])
    assert [(link.key, link.url, link.utm) for link in page] == [
        ("l1", "https://example.com/1", Utm(source="news", campaign="launch")),
        ("go.example/l3", "https://example.com/3", None),
        ("l0", "https://example.com/0", None),
    ]
