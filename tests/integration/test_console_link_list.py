"""The console's links list searched and ordered over the workspace's newest links at once, not
only over the page shown, against moto: what it finds and in which order, and how many DynamoDB
reads a search and an order make (a fixed number, whatever the links: their times are measured by
`python -m tools.developers.bench console`, not here)."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.console import link_window, links
from shortlink.links.model import Link
from tests.aws_calls import recording_aws_calls
from tests.integration.stream_delivery import StreamDelivery
from tests.integration.test_console import Browser, ingest_clicks, signed_in

pytestmark = pytest.mark.one_account_per_module
LINKS = 60


@pytest.fixture
def browser(aws, handlers) -> Browser:
    return Browser(handlers)


def stored_links(owner: str) -> None:
    """LINKS links of `owner`, a minute apart (w000 the oldest), every third titled "Spring sale",
    the even ones tagged, as the API stores them."""
    now = datetime.now(UTC)
    for n in range(LINKS):
        title = "Spring sale" if n % 3 == 0 else (None if n == 1 else f"Note {n:03d}")
        made = now - timedelta(minutes=LINKS - n)
        tags = ("even",) if n % 2 == 0 else ()
        link = Link(f"w{n:03d}", f"https://example.com/{n}", owner, made, title=title, tags=tags)
        services.link_repository().add(link)


def listed(page: str) -> list[str]:
    return re.findall(r'<tr data-code="([^"]+)">', page)


def reads(calls) -> dict[str, int]:
    counts = calls.counts()
    return {operation: counts[("dynamodb", operation)] for operation in ("Query", "BatchGetItem")}


def test_a_search_and_each_order_cover_every_link_in_a_fixed_number_of_reads(aws, handlers, template, browser):
    key = aws.new_api_key()
    owner = key_id_for(hash_api_key(key))
    signed_in(browser, key)
    stored_links(owner)
    # Given people's clicks on the oldest link (on the last newest-first page) and a bot's on another,
    # counted in the account's days by the stream aggregator
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    ingest_clicks(handlers, owner, [("w000", today, "person")] * 2 + [("w030", today, "crawler")])
    StreamDelivery(template, aws.dynamodb, handlers).drain()
    # When the list is ordered by people's clicks, Then the oldest link leads the first page
    with recording_aws_calls() as calls:
        first = browser.get("/console", sort="clicks")["body"]
    assert listed(first)[:2] == ["w000", "w059"]  # then newest first among the links without
    assert len(listed(first)) == 25
    # in reads that do not grow with the links: the outlines (one Query), the account's 7 days
    # (one Query), the days of the 2 links they name as clicked, the page's links, its glances (two)
    assert reads(calls) == {"Query": 2, "BatchGetItem": 4}
    assert 'href="/console?sort=clicks&amp;page=2" id="next-page"' in first
    third = browser.get("/console", sort="clicks", page="3")["body"]
    assert len(listed(third)) == 10
    assert "next-page" not in third
    # When searched by title (any case), Then every match of all the links, newest first
    with recording_aws_calls() as calls:
        found = browser.get("/console", q="SPRING sale")["body"]
    assert listed(found) == [f"w{n:03d}" for n in range(57, -1, -3)]
    assert '<p id="found-count">20 links.</p>' in found
    assert reads(calls) == {"Query": 1, "BatchGetItem": 3}  # outlines, the page's links, its glances
    # and the filters narrow the search: tagged even and titled Spring sale (every sixth)
    assert listed(browser.get("/console", q="spring", tag="even")["body"]) == [f"w{n:03d}" for n in range(54, -1, -6)]
    # When ordered by title, Then across all the links, untitled last
    titled = listed(browser.get("/console", sort="title", page="2")["body"])
    assert titled[:2] == ["w040", "w041"]  # Note 002 .. Note 058 (39 of them) lead, by title
    assert titled[14] == "w057"  # then Spring sale, newest first among equals
    last = listed(browser.get("/console", sort="title", page="3")["body"])
    assert last[-1] == "w001"  # no title
    assert last[-2] == "w000"  # the oldest Spring sale, after the newer ones
    # A page the window does not have, or not in ASCII digits, is refused naming it
    for page in ("0", "41", "\u0661", "1e1"):
        refused = browser.get("/console", sort="title", page=page)
        assert refused["statusCode"] == 400, page
        assert "page" in refused["body"]


def test_past_the_window_the_list_says_so_and_finds_an_older_code(aws, browser, monkeypatch):
    key = aws.new_api_key()
    signed_in(browser, key)
    stored_links(key_id_for(hash_api_key(key)))
    monkeypatch.setattr(link_window, "WINDOW", 50)
    monkeypatch.setattr(links, "WINDOW", 50)
    # When searched with more links than the window, Then the page says the bound
    found = browser.get("/console", q="spring")["body"]
    assert "Found among your newest 50 links" in found
    assert listed(found)[-1] == "w012"  # w009 .. w000 are older than the window
    # and a code older than the window is still found (one GetItem)
    assert listed(browser.get("/console", q="w003")["body"]) == ["w003"]
    # When the account's days name no clicked links (none counted here), Then the clicks order
    # weighs the newest UNNAMED_WINDOW only, and says so
    monkeypatch.setattr(link_window, "UNNAMED_WINDOW", 30)
    by_clicks = browser.get("/console", sort="clicks", page="2")["body"]
    assert "Ordered among your newest 30 links" in by_clicks
    assert listed(by_clicks) == [f"w{n:03d}" for n in range(34, 29, -1)]
