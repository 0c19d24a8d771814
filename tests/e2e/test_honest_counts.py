"""Honest counts over real HTTP through the local stack: browser prefetches neither count nor take
a follow from max_clicks, bots (previewers, scanners, a social network's repeated fetches) are
counted as bots of their class, a visitor's quick repeats are flagged, and without the edge's country the
country comes from an IP → country database."""

from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

from mmdb_writer import MMDBWriter
from netaddr import IPSet  # type: ignore[import-untyped]

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_flow import wait_for_clicks

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:126.0) Gecko/20100101 Firefox/126.0"
PREFETCHES = [
    {"Sec-Purpose": "prefetch"},
    {"Sec-Purpose": "prefetch;prerender"},
    {"Purpose": "prefetch"},
    {"X-Moz": "prefetch"},
]


def stats(stack: RunningStack, code: str, auth: dict[str, str], output: str = "json", granularity: str = "hour"):
    now = datetime.now(UTC)
    query = {"from": (now - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ"), "granularity": granularity}
    return stack.request("GET", f"/links/{code}/stats?{urlencode({**query, 'format': output})}", headers=auth)


def test_prefetches_are_declined_uncounted_and_take_no_follow(stack, auth):
    # Given a link that may be followed once
    created = stack.request("POST", "/links", {"url": "https://example.com/once", "max_clicks": 1}, auth)
    code = created.json()["code"]
    # When browsers prefetch and prerender it, each way they say so
    declined = [stack.request("GET", f"/{code}", headers={"User-Agent": IPHONE, **marks}) for marks in PREFETCHES]
    # Then each is declined as Chrome expects (503) and never cached
    assert [answer.status for answer in declined] == [503] * len(PREFETCHES)
    assert {answer.headers["cache-control"] for answer in declined} == {"no-store"}
    # And the visitor who then navigates is sent on: the prefetches took no follow
    assert stack.request("GET", f"/{code}", headers={"User-Agent": IPHONE}).status == 302
    assert stack.request("GET", f"/{code}", headers={"User-Agent": IPHONE}).status == 410  # used up by that one
    # And counted once
    assert wait_for_clicks(stack, code, auth, expected=1) == 1
    report = stats(stack, code, auth).json()
    assert (report["clicks"], report["bots"], report["repeat_clicks"], report["people"]) == (1, 0, 0, 1)
    assert report["agents"]["person"] == sum(report["agents"].values()) == 1


def test_scanners_previewers_and_repeats_are_told_apart_from_people(stack, auth):
    created = stack.request("POST", "/links", {"url": "https://example.com/campaign"}, auth)
    code = created.json()["code"]
    visitors = [
        IPHONE,  # a person, who taps the link three times within seconds
        IPHONE,
        IPHONE,
        FIREFOX,  # another
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",  # fetched again and again
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Mozilla/5.0 (compatible; Barracuda Sentinel (EE))",  # an email link scanner
        "Amazon-Route53-Health-Check-Service (ref 4a1b2c3d; report http://amzn.to/1vsZADi)",
        "Braze Sender 41c2f0",
    ]
    for user_agent in visitors:
        assert stack.request("GET", f"/{code}", headers={"User-Agent": user_agent}).status == 302
    # and a browser's fetch that says it draws a preview
    assert stack.request("GET", f"/{code}", headers={"User-Agent": FIREFOX, "Purpose": "preview"}).status == 302
    # (ten clicks in a pack window: under load they take longer than one, as test_edge_sync's twelve)
    assert wait_for_clicks(stack, code, auth, expected=len(visitors) + 1, timeout=30) == len(visitors) + 1

    report = stats(stack, code, auth).json()
    # Every follow is in clicks; six were bots; two of the person's three taps were repeats
    assert (report["clicks"], report["bots"], report["repeat_clicks"], report["people"]) == (10, 6, 2, 4)
    assert report["agents"] == {
        "person": 4,
        "crawler": 0,
        "previewer": 4,
        "scanner": 1,
        "monitor": 1,
        "library": 0,
        "ai_agent": 0,
        "unknown_bot": 0,
    }
    assert report["unique_visitors"] == 2
    assert sum(point["repeat_clicks"] for point in report["series"]) == 2
    # (classes are counted per day: a daily series carries them, an hourly one people and bots)
    daily = stats(stack, code, auth, granularity="day").json()["series"]
    assert sum(point["agents"]["previewer"] for point in daily) == 4
    assert all("agents" not in point for point in report["series"])
    assert {"value": "bot", "clicks": 6} in report["top"]["device"]
    assert report["classifier_version"].startswith("3+crawler-user-agents-")
    rows = stats(stack, code, auth, "csv").body.decode().splitlines()
    assert rows[0] == (
        "start,clicks,bots,unique_visitors,repeat_clicks,people,"
        "crawler,previewer,scanner,monitor,library,ai_agent,unknown_bot"
    )
    assert sum(int(row.split(",")[4]) for row in rows[1:]) == 2
    assert {row.split(",")[7] for row in rows[1:]} == {""}  # an hourly row leaves the classes out
    daily_rows = stats(stack, code, auth, "csv", granularity="day").body.decode().splitlines()
    assert sum(int(row.split(",")[7]) for row in daily_rows[1:]) == 4


def write_database(path: Path) -> Path:
    """The local stack's visitors come from 127.0.0.1: in New Zealand, for this database."""
    writer = MMDBWriter(ip_version=6, database_type="DBIP-Country-Lite", ipv4_compatible=True)
    writer.insert_network(IPSet(["127.0.0.0/8"]), {"country": {"iso_code": "NZ"}})
    writer.to_db_file(str(path))
    return path


def test_without_the_edges_country_the_database_names_it(tmp_path):
    database = write_database(tmp_path / "countries.mmdb")
    key = "sl_countryTestKeyForTheDevStack00000"
    started = RunningStack.start(COUNTRY_DATABASE=str(database), SHORTLINK_API_KEY=key)
    try:
        assert started.ready, started.output()
        auth = {"Authorization": f"Bearer {started.api_key}", "Content-Type": "application/json"}
        code = started.request("POST", "/links", {"url": "https://example.com/"}, auth).json()["code"]
        # The edge's country wins where it gave one; elsewhere the database's
        assert started.request("GET", f"/{code}", headers={"CloudFront-Viewer-Country": "JP"}).status == 302
        assert started.request("GET", f"/{code}", headers={"User-Agent": FIREFOX}).status == 302
        assert wait_for_clicks(started, code, auth, expected=2) == 2
        countries = stats(started, code, auth).json()["top"]["country"]
        assert sorted(countries, key=lambda top: top["value"]) == [
            {"value": "JP", "clicks": 1},
            {"value": "NZ", "clicks": 1},
        ]
    finally:
        assert started.stop() == 0
