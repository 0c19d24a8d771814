"""The raw export of the click lake over real HTTP on the local stack (CLICK_LAKE=1): clicks
followed, counted and written as Parquet by the local Firehose, exported by the API through the
lake's local Athena, and downloaded from the local S3 through the link the API gives."""

import csv
import io
import time
import urllib.request
from datetime import UTC, datetime

from tests.e2e.test_flow import wait_for_clicks

BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/126.0"


def exported_rows(stack, auth: dict[str, str], day: str) -> list[dict[str, str]]:
    """The account's rows of `day`, through POST /clicks/exports and its link."""
    started = stack.request("POST", "/clicks/exports", {"from": day, "to": day, "format": "csv"}, auth)
    assert started.status == 202, started.body
    location = started.headers["location"]
    deadline = time.monotonic() + 20
    while (job := stack.request("GET", location, headers=auth).json())["state"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    assert job["state"] == "succeeded", job
    [url] = job["files"]
    with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 (the local S3's link)
        assert answer.headers["Content-Disposition"] == f'attachment; filename="clicks-{day}-{day}.csv"'
        return list(csv.DictReader(io.StringIO(answer.read().decode())))


def test_followed_clicks_come_back_in_a_raw_export(running):
    # Given a link of the stack's account, followed three times, the clicks counted
    stack = running.stack(running.endpoints("moto"))
    auth = {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}
    code = stack.request("POST", "/links", {"url": "https://example.com/lake"}, auth).json()["code"]
    for referrer in ("https://news.example/a", "https://news.example/b", None):
        headers = {"User-Agent": BROWSER, **({"Referer": referrer} if referrer else {})}
        assert stack.request("GET", f"/{code}", headers=headers).status == 302
    assert wait_for_clicks(stack, code, auth, expected=3) == 3
    # When the day is exported once the local Firehose wrote its rows (every 2 s)
    day = datetime.now(UTC).date().isoformat()
    deadline = time.monotonic() + 15
    while len(rows := [row for row in exported_rows(stack, auth, day) if row["link"] == code]) < 3:
        assert time.monotonic() < deadline, rows
        time.sleep(1)
    # Then the file holds each click once, with what the stats count and nothing that names a person
    assert sorted(row["referrer"] for row in rows) == ["(direct)", "news.example", "news.example"]
    assert {(row["agent"], row["bot"], row["owner"] != "") for row in rows} == {("person", "false", True)}
    assert len({row["click_id"] for row in rows}) == 3
    assert not any(BROWSER in value or "127.0.0.1" in value for row in rows for value in row.values())
