"""The console's links list with 1,000 links (`python -m tools.developers.bench console`): each
listed link's 7 days of people's clicks read in one batch, newest first and sorted by them, and a
title search (which reads up to 500 links and their days): the page's time in the console's
handler and its AWS calls. Not a test: nothing asserts a timing (the issue's bound is 0.5 s)."""

import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from tests.aws_calls import recording_aws_calls
from tests.events import http_event
from tests.integration.ingest_faults import record
from tools.developers.bench.harness import Stack, create_links, progress

LINKS = 1000
CLICKED = 200  # links with clicks over the last 7 days
SAMPLES = 20
HOST = "bench.example"
PAGES: dict[str, dict[str, str]] = {
    "newest first": {},
    "sorted by 7 days": {"sort": "clicks"},
    "title search": {"q": "no such title"},
}


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


def count_clicks(stack: Stack, codes: list[str]) -> None:
    """People's clicks on CLICKED of the links over the last 7 days, counted by ingest."""
    from shortlink.clicks.events import ClickEvent, ClickPack

    now = datetime.now(UTC)
    for start in range(0, CLICKED, 50):
        clicks = tuple(
            ClickEvent(f"b{n}-{day}", codes[n], now - timedelta(days=day))
            for n in range(start, start + 50)
            for day in range(n % 7 + 1)
        )
        pack = record(f"m{start}", ClickPack(f"p{start}", clicks).to_json())
        stack.runner.call("IngestFunction", {"Records": [pack]})


def measure_console_pages(stack: Stack) -> dict[str, Any]:
    progress(f"creating {LINKS} links for the console's list")
    codes, _, _ = create_links(stack, LINKS, "console")
    count_clicks(stack, codes)
    cookie = signed_in(stack, os.environ["BENCH_API_KEY"])
    pages: dict[str, Any] = {}
    for name, query in PAGES.items():
        progress(f"console links list, {name}")
        durations = []
        for _ in range(SAMPLES):
            started = time.perf_counter_ns()
            answer = stack.runner.call("ConsoleFunction", console_event("/console", cookie, query=query or None))
            durations.append(time.perf_counter_ns() - started)
            assert answer["statusCode"] == 200, answer["statusCode"]
        with recording_aws_calls() as calls:
            stack.runner.call("ConsoleFunction", console_event("/console", cookie, query=query or None))
        pages[name] = {
            "query": query,
            "median_ms": round(statistics.median(durations) / 1e6, 1),
            "max_ms": round(max(durations) / 1e6, 1),
            "aws_calls": {f"{service}:{operation}": n for (service, operation), n in sorted(calls.counts().items())},
        }
    return {"links": LINKS, "clicked_links": CLICKED, "samples": SAMPLES, "pages": pages}
