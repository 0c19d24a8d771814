"""The console's account overview, against moto: the account's clicks as `GET /stats` reports
them (the same domain call), counted by ingest and the stream aggregator; its top links, a tag
filter, its CSV; a bad tag or range named, a key without stats:read refused."""

import json
import re

from shortlink.access.api_keys import hash_api_key, key_id_for
from tests.events import bearer, http_event
from tests.integration.stream_delivery import StreamDelivery
from tests.integration.test_console import Browser, browser, create, scoped_key, signed_in
from tests.integration.test_flow import drain_clicks

__all__ = ["browser"]  # a fixture, used by name


def api_stats(handlers, key, **query):
    answer = handlers["ManageFunction"](http_event("GET", "/stats", headers=bearer(key), query=query or None))
    assert answer["statusCode"] == 200, answer
    return json.loads(answer["body"])


def shown_total(page: str, total: str = "clicks") -> int:
    found = re.search(rf'id="total-{total}">(\d+)<', page)
    assert found, "no totals on the page"
    return int(found.group(1))


def test_the_overview_shows_the_accounts_stats_its_top_links_a_tags_and_their_csv(
    aws, handlers, browser, template, api
):
    # Given an account's two links, one tagged, followed twice and once, counted through the stream
    key = aws.new_api_key()
    signed_in(browser, key)
    assert create(browser, url="https://example.com/spring", slug="spring", tags="promo")["statusCode"] == 303
    assert create(browser, url="https://example.com/other", slug="other")["statusCode"] == 303
    for code in ("spring", "spring", "other"):
        assert api.follow(code).status == 302
    while drain_clicks(aws, handlers):
        pass
    StreamDelivery(template, aws.dynamodb, handlers).drain()

    # Then the overview shows the account's totals as GET /stats has them, the chart's series,
    # the top links (each to its page) and the dimensions' bars
    overview = browser.get("/console/overview", range="7d")
    assert overview["statusCode"] == 200
    page = overview["body"]
    shown_range = re.search(r"(\S+) to \S+ \(UTC\)", page)
    assert shown_range, "no range on the page"
    report = api_stats(handlers, key, **{"from": shown_range.group(1)})
    assert shown_total(page) == report["clicks"] == 3
    # its headline is the people's clicks (these follows are a browser's), bots beside them
    assert shown_total(page, "people") == report["people"] == report["agents"]["person"] == 3
    assert shown_total(page, "bots") == report["bots"] == 0
    # spring's second follow came from the same visitor moments after the first: a repeat
    repeats = re.search(r'id="total-repeats">(\d+)<', page)
    assert repeats, "no repeats on the page"
    assert repeats.group(1) == str(report["repeat_clicks"]) == "1"
    series = r'data-series=\'\[\{"agents": \{"ai_agent": 0, .*?\}, "bots": 0, "clicks": 0, "people": 0,'
    assert re.search(series, page)
    top_links = re.findall(r'<a class="bar-label" href="(/console/links/\w+)">(\w+)</a>.*?value="(\d+)"', page)
    assert top_links == [("/console/links/spring", "spring", "2"), ("/console/links/other", "other", "1")]
    assert re.search(r'id="breakdown-country".*?<td class="bar-label">XX</td><td class="bar-value">3<', page, re.S)
    assert 'href="/console/overview/stats.csv?range=7d&amp;granularity=day&amp;from=&amp;to="' in page
    # And a tag's overview counts only its links' clicks, with a way back to all links
    tagged = browser.get("/console/overview", tag="promo", range="7d")["body"]
    assert shown_total(tagged) == api_stats(handlers, key, tag="promo")["clicks"] == 2
    assert re.findall(r'class="bar-label" href="/console/links/(\w+)"', tagged) == ["spring"]
    assert 'id="all-links"' in tagged
    # And its CSV is the series the API exports
    csv = browser.get("/console/overview/stats.csv", tag="promo", range="7d")
    assert csv["headers"]["Content-Disposition"] == 'attachment; filename="tag-promo-stats.csv"'
    lines = csv["body"].splitlines()
    assert lines[0].startswith("start,clicks,bots,unique_visitors,repeat_clicks,people,crawler,")
    assert lines[-1].split(",")[1] == lines[-1].split(",")[5] == "2"
    # And a key of the account that reads stats only sees the totals, but no top link: they name
    # codes, which it may not read (as GET /stats answers it)
    stats_only = Browser(handlers)
    signed_in(stats_only, scoped_key("stats:read", owner=key_id_for(hash_api_key(key))))
    page = stats_only.get("/console/overview", range="7d")["body"]
    assert shown_total(page) == 3
    assert re.findall(r'class="bar-label" href="/console/links/', page) == []
    # And when an HTTP library follows `other` too, the links list shows each link's people's
    # clicks, while the overview's totals count the library's click among the bots
    assert api.follow("other", headers={"user-agent": "curl/8.5.0"}).status == 302
    while drain_clicks(aws, handlers):
        pass
    StreamDelivery(template, aws.dynamodb, handlers).drain()
    row = r'<tr data-code="(\w+)">.*?<span class="glance-total">(\d+)</span>'
    listed = dict(re.findall(row, browser.get("/console")["body"], re.S))
    assert listed == {"spring": "2", "other": "1"}
    overview = browser.get("/console/overview", range="7d")["body"]
    assert (shown_total(overview), shown_total(overview, "people"), shown_total(overview, "bots")) == (4, 3, 1)
    assert re.search(r'id="total-library">1</span> HTTP libraries', overview)


def test_a_bad_tag_or_range_is_named_and_a_key_without_stats_read_is_refused(aws, handlers, browser):
    owner = aws.new_api_key()
    signed_in(browser, owner)
    bad_tag = browser.get("/console/overview", tag="no spaces")
    assert (bad_tag["statusCode"], "a tag is 1-32 letters" in bad_tag["body"]) == (400, True)
    too_long = browser.get("/console/overview", range="90d", granularity="hour")
    assert too_long["statusCode"] == 422
    assert re.search(r'id="range-error">an hourly series covers at most 31 days', too_long["body"])
    # A key of the account that reads links only: no overview in its menu, and none to open
    reader = signed_in(Browser(handlers), scoped_key("links:read", owner=key_id_for(hash_api_key(owner))))
    assert 'href="/console/overview"' not in reader.get("/console")["body"]
    for path in ("/console/overview", "/console/overview/stats.csv"):
        refused = reader.get(path)
        assert (refused["statusCode"], "stats:read" in refused["body"]) == (403, True)
