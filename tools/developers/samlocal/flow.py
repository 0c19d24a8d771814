"""create → follow → stats (the link's and the account's) over real HTTP against `sam local start-api`:
what make sam-local checks."""

import http.client
import json
import time
from typing import Any
from urllib.parse import urlsplit

# A browser's User-Agent: the click counts as a person's, not a bot's.
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
STATS_POLLS = 60  # ingest runs in its own container through start-lambda: allow it a cold start
STATS_POLL_SECONDS = 2.0


class FlowFailed(SystemExit):
    pass


def request(api_url: str, method: str, path: str, headers: dict[str, str], body: bytes | None = None) -> Any:
    """(status, headers, body) of one request; redirects are not followed."""
    parts = urlsplit(api_url)
    # A cold start of a function container takes seconds; SAM answers only when it is done.
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def expect(step: str, status: int, wanted: int, body: bytes) -> None:
    print(f"{step} -> {status} {body.decode(errors='replace')[:400]}", flush=True)
    if status != wanted:
        raise FlowFailed(f"{step}: expected {wanted}, got {status}")


def run(api_url: str, api_key: str) -> dict[str, Any]:
    """Create a link, follow it once, wait for its click in its stats and in the account's; the
    link's totals and the account's clicks."""
    authorised = {"Authorization": f"Bearer {api_key}"}
    destination = f"https://example.com/sam-local/{int(time.time())}"
    status, _, body = request(
        api_url,
        "POST",
        "/links",
        {**authorised, "Content-Type": "application/json"},
        json.dumps({"url": destination}).encode(),
    )
    expect("POST /links", status, 201, body)
    created = json.loads(body)
    if not created["short_url"].startswith(f"{api_url}/"):
        raise FlowFailed(f"short_url {created['short_url']} is not under {api_url}")
    code = created["code"]

    status, headers, body = request(api_url, "GET", f"/{code}", {"User-Agent": BROWSER})
    location = {name.lower(): value for name, value in headers.items()}.get("location")
    print(f"GET /{code} -> {status} Location: {location}", flush=True)
    if status != 302 or location != destination:
        raise FlowFailed(f"GET /{code}: expected 302 to {destination}, got {status} to {location}")

    report = counted(api_url, f"/links/{code}/stats", authorised)
    totals = {name: report[name] for name in ("clicks", "bots", "unique_visitors")}
    # The account's stats come from the click-stats table's stream, through the aggregator's trigger
    account = counted(api_url, "/stats", authorised)
    if not any(link["code"] == code for link in account["top_links"]):
        raise FlowFailed(f"GET /stats does not rank {code}: {account['top_links']}")
    return {**totals, "account_clicks": account["clicks"]}


def counted(api_url: str, path: str, headers: dict[str, str]) -> dict[str, Any]:
    """A stats route's report once it counts a click (ingest and the aggregator run behind)."""
    for _ in range(STATS_POLLS):
        status, _, body = request(api_url, "GET", path, headers)
        if status == 200 and json.loads(body)["clicks"] >= 1:
            break
        time.sleep(STATS_POLL_SECONDS)
    expect(f"GET {path}", status, 200, body)
    report: dict[str, Any] = json.loads(body)
    if report["clicks"] < 1:
        raise FlowFailed(f"the click never reached {path}")
    return report
