"""The console's links list with 1,000 links (`python -m tools.developers.bench console`): newest
first a page at a time, and over all of them at once (shortlink.console.link_window) ordered by
people's clicks over 7 days and by title, and a title search that finds 100 of them and one that
finds none: the page's time in the console's handler (median of SAMPLES) and its AWS calls. The
clicks are counted by ingest and the account's days by the stream aggregator, as on AWS: first
CLICKED links on one day each (the days name every clicked link), then BUSY more today (a day
with more clicked links than it names: the order weighs the newest links only). Not a test:
nothing asserts a timing (the issue's bound is 0.5 s)."""

import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import boto3

from tests.aws_calls import recording_aws_calls
from tests.events import http_event
from tests.integration.ingest_faults import record
from tools.developers.bench.harness import REGION, Stack, progress

LINKS = 1000
CLICKED = 200  # links with people's clicks on one of the last 7 days (about 30 a day)
BUSY = 100  # links clicked today besides: today's item then names only 100 of its clicked links
SAMPLES = 20
HOST = "bench.example"
TITLED_EVERY = 10  # every tenth link's title holds the searched word
PAGES: dict[str, dict[str, str]] = {
    "newest first": {},
    "sorted by 7 days": {"sort": "clicks"},
    "sorted by title": {"sort": "title"},
    "title search": {"q": "launch"},
    "title search, no match": {"q": "no such title"},
}
BUSY_PAGES: dict[str, dict[str, str]] = {"sorted by 7 days, over 100 clicked links a day": {"sort": "clicks"}}


def title_of(n: int) -> str:
    return f"Spring launch {n}" if n % TITLED_EVERY == 0 else f"Newsletter {n}"


def console_event(
    path: str, cookie: str | None, form: dict[str, str] | None = None, query: dict[str, str] | None = None
) -> dict[str, Any]:
    headers = {"host": HOST}
    if form is not None:
        headers.update({"origin": f"https://{HOST}", "content-type": "application/x-www-form-urlencoded"})
    method = "GET" if form is None else "POST"
    body = urlencode(form) if form is not None else None
    event = http_event(method, path, headers=headers, body=body, route="/console/{proxy+}", query=query)
    if cookie:
        event["cookies"] = [f"console_session={cookie}"]
    return event


def signed_in(stack: Stack, key: str) -> str:
    answer = stack.runner.call("ConsoleFunction", console_event("/console/sign-in", None, {"api_key": key}))
    cookie = next(each for each in answer["cookies"] if each.startswith("console_session="))
    return str(cookie.split(";")[0].removeprefix("console_session="))


def count_clicks(stack: Stack, clicked: list[tuple[str, int]], owner: str) -> None:
    """A person's click on each (code, days ago) of `clicked`, counted by ingest, 500 to a pack;
    then the account's days, by the stream aggregator."""
    from shortlink.clicks.events import ClickEvent, ClickPack

    now = datetime.now(UTC)
    for start in range(0, len(clicked), 500):
        part = clicked[start : start + 500]
        clicks = tuple(ClickEvent(f"c-{code}", code, now - timedelta(days=ago), owner=owner) for code, ago in part)
        first = part[0][0]  # a pack's id, unique: no two calls click the same links
        pack = record(f"m-{first}", ClickPack(f"p-{first}", clicks).to_json())
        stack.runner.call("IngestFunction", {"Records": [pack]})
    count_account_days(stack)


def count_account_days(stack: Stack) -> None:
    """The click-stats table's stream handed to the account aggregator until it is drained."""
    from tools.developers.devstack.resources import stream_arns
    from tools.developers.devstack.stream_trigger import StreamPoller

    trigger = stack.template.stream_trigger("AccountStatsFunction")
    arn = stream_arns(stack.template, boto3.client("dynamodb"))[trigger.table_id]
    poller = StreamPoller(trigger, arn, boto3.client("dynamodbstreams"), stack.runner, REGION)
    while poller.poll_once():
        pass


def seeded_links(key: str) -> tuple[list[str], str]:
    """LINKS links of the key's workspace, a second apart (the first the oldest), stored as the
    API stores them (the repository's own writes: creating them through the API would take minutes)."""
    from shortlink.access.api_keys import hash_api_key
    from shortlink.links.model import Link
    from shortlink.wiring import api_key_store, link_repository

    found = api_key_store().find_by_hash(hash_api_key(key))
    assert found is not None
    now = datetime.now(UTC)
    codes = [f"console{n:04d}" for n in range(LINKS)]
    for n, code in enumerate(codes):
        made = now - timedelta(seconds=LINKS - n)
        link_repository().add(Link(code, f"https://example.com/{code}", found.owner, made, title=title_of(n)))
    return codes, found.owner


def measure_page(stack: Stack, cookie: str, query: dict[str, str]) -> dict[str, Any]:
    durations = []
    for _ in range(SAMPLES):
        started = time.perf_counter_ns()
        answer = stack.runner.call("ConsoleFunction", console_event("/console", cookie, query=query or None))
        durations.append(time.perf_counter_ns() - started)
        assert answer["statusCode"] == 200, answer["statusCode"]
    with recording_aws_calls() as calls:
        stack.runner.call("ConsoleFunction", console_event("/console", cookie, query=query or None))
    return {
        "query": query,
        "median_ms": round(statistics.median(durations) / 1e6, 1),
        "max_ms": round(max(durations) / 1e6, 1),
        "aws_calls": {f"{service}:{operation}": n for (service, operation), n in sorted(calls.counts().items())},
    }


def measure_console_pages(stack: Stack) -> dict[str, Any]:
    from tools.developers.devstack.__main__ import ensure_api_key

    progress(f"storing {LINKS} links for the console's list")
    os.environ["BENCH_API_KEY"] = ensure_api_key(os.environ["API_KEYS_TABLE"], os.environ.get("BENCH_API_KEY"))
    codes, owner = seeded_links(os.environ["BENCH_API_KEY"])
    count_clicks(stack, [(codes[n], n % 7) for n in range(CLICKED)], owner)
    cookie = signed_in(stack, os.environ["BENCH_API_KEY"])
    pages: dict[str, Any] = {}
    for name, query in PAGES.items():
        progress(f"console links list, {name}")
        pages[name] = measure_page(stack, cookie, query)
    count_clicks(stack, [(code, 0) for code in codes[CLICKED : CLICKED + BUSY]], owner)
    for name, query in BUSY_PAGES.items():
        progress(f"console links list, {name}")
        pages[name] = measure_page(stack, cookie, query)
    return {"links": LINKS, "clicked_links": CLICKED, "busy_links": BUSY, "samples": SAMPLES, "pages": pages}
