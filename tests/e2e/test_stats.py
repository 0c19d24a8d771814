"""Click analytics over real HTTP through the local stack: clicks described after the response,
counted by ingest, and read back as totals, series, top values and CSV."""

from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from tests.e2e.test_flow import wait_for_clicks

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"


def test_clicks_are_described_counted_and_reported(stack, auth):
    created = stack.request("POST", "/links", {"url": "https://example.com/analytics"}, auth)
    code = created.json()["code"]
    visitors = [
        {
            "User-Agent": IPHONE,
            "CloudFront-Viewer-Country": "DE",
            "Accept-Language": "de-DE,en;q=0.5",
            "Referer": "https://www.news.example/story",
        },
        {
            "User-Agent": IPHONE,
            "CloudFront-Viewer-Country": "DE",
            "Accept-Language": "de-DE,en;q=0.5",
            "Referer": "https://www.news.example/story",
        },
        {"User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/126.0", "CloudFront-Viewer-Country": "FR"},
        {"User-Agent": "Googlebot/2.1 (+http://www.google.com/bot.html)"},
    ]
    for headers in visitors:
        assert stack.request("GET", f"/{code}", headers=headers).status == 302
    assert wait_for_clicks(stack, code, auth, expected=4) == 4

    now = datetime.now(UTC)
    query = urlencode({"from": (now - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ"), "granularity": "hour"})
    report = stack.request("GET", f"/links/{code}/stats?{query}", headers=auth).json()
    assert (report["clicks"], report["bots"]) == (4, 1)
    assert report["unique_visitors"] == 2  # the iPhone twice and the Firefox; bots are not visitors
    assert report["top"]["country"][0] == {"value": "DE", "clicks": 2}
    assert {"value": "mobile", "clicks": 2} in report["top"]["device"]
    assert {"value": "news.example", "clicks": 2} in report["top"]["referrer"]
    assert {"value": "de", "clicks": 2} in report["top"]["language"]
    assert sum(point["clicks"] for point in report["series"]) == 4

    csv = stack.request("GET", f"/links/{code}/stats?{query}&format=csv", headers=auth)
    assert csv.status == 200
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.body.decode().splitlines()[0] == (
        "start,clicks,bots,unique_visitors,repeat_clicks,people,"
        "crawler,previewer,scanner,monitor,library,ai_agent,unknown_bot"
    )

    backwards = urlencode({"from": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "to": "2020-01-01T00:00:00Z"})
    invalid = stack.request("GET", f"/links/{code}/stats?{backwards}", headers=auth)
    assert invalid.status == 422
    assert "from" in invalid.json()["message"]
