"""The edge tier's sync and clicks in the local stack (EDGE_TIER=1) over real HTTP: links reach
the edge's store through the links table's stream, the local KeyValueStore API and its
propagation delay; an edit, a delete and a change that makes a link ineligible leave the edge
within the bound docs/edge.md states; the clicks the edge answers are counted exactly once from
their real-time log lines, however often the log stream offers them again."""

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_flow import wait_for_clicks

PROPAGATION_MS = 500
# docs/edge.md: the stream poll (0.5 s) and its batching window, the sync's call, the store's
# propagation, and the Node host's re-read of the published file; 5 s leaves room for a busy machine.
LOCAL_BOUND_SECONDS = 5.0
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
LAMBDA_FOLLOW = re.compile(r"devstack\.http (GET|HEAD) /\{code\} ->")
# The local stack's default domain is 127.0.0.1:<port>: its links' keys name the host without the port.
DEFAULT_HOST_PREFIX = "127.0.0.1/"
BOT = "Googlebot/2.1 (+http://www.google.com/bot.html)"


def edge_stack(
    store_file: Path, propagation_ms: int, log_redelivery: float = 0, reconcile_seconds: float = 300
) -> Iterator[tuple[RunningStack, Path]]:
    """A local stack with the edge tier, its store published at `store_file`, stopped after."""
    stack = RunningStack.start(
        EDGE_TIER="1",
        EDGE_STORE_FILE=str(store_file),
        EDGE_PROPAGATION_MS=str(propagation_ms),
        EDGE_LOG_REDELIVERY=str(log_redelivery),
        EDGE_RECONCILE_SECONDS=str(reconcile_seconds),
    )
    try:
        assert stack.ready, stack.output()
        yield stack, store_file
    finally:
        stack.stop()


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningStack, Path]]:
    yield from edge_stack(
        tmp_path_factory.mktemp("edge-sync") / "store.json",
        PROPAGATION_MS,
        log_redelivery=0.5,  # every other batch of log lines comes again
    )


def auth(stack: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}


def published(store_file: Path) -> dict[str, str]:
    """The published entries, the default domain's (keyed `127.0.0.1/<code>`) by their code."""
    try:
        entries: dict[str, str] = json.loads(store_file.read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return {key.removeprefix(DEFAULT_HOST_PREFIX): value for key, value in entries.items()}


def seconds_until(condition: Callable[[], bool], timeout: float = 30) -> float:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "never happened"
        time.sleep(0.05)
    return time.monotonic() - start


def location(stack: RunningStack, code: str) -> Any:
    answer = stack.request("GET", f"/{code}", headers={"User-Agent": BROWSER})
    return answer.status, answer.headers.get("location")


def test_an_edit_a_delete_and_a_link_made_ineligible_leave_the_edge_within_the_bound(edge):
    stack, store_file = edge
    keyed = auth(stack)
    edited = stack.request("POST", "/links", {"url": "https://example.com/before"}, keyed).json()["code"]
    deleted = stack.request("POST", "/links", {"url": "https://example.com/deleted"}, keyed).json()["code"]
    limited = stack.request("POST", "/links", {"url": "https://example.com/limited"}, keyed).json()["code"]
    # Given three links the sync has put into the store
    seconds_until(lambda: {edited, deleted, limited} <= set(published(store_file)))
    # When one is edited, one deleted and one given a click budget (never answered at the edge)
    assert stack.request("PATCH", f"/links/{edited}", {"url": "https://example.com/after"}, keyed).status == 200
    assert stack.request("DELETE", f"/links/{deleted}", headers=keyed).status == 204
    assert stack.request("PATCH", f"/links/{limited}", {"max_clicks": 5}, keyed).status == 200
    # Then within the bound the edge answers the edit, and the others are the origin's again
    assert seconds_until(lambda: location(stack, edited) == (302, "https://example.com/after")) < LOCAL_BOUND_SECONDS
    assert seconds_until(lambda: location(stack, deleted)[0] == 410) < LOCAL_BOUND_SECONDS
    assert seconds_until(lambda: limited not in published(store_file)) < LOCAL_BOUND_SECONDS


def test_clicks_the_edge_answers_are_counted_once_with_bots_and_repeats(edge):
    stack, store_file = edge
    keyed = auth(stack)
    code = stack.request("POST", "/links", {"url": "https://example.com/counted"}, keyed).json()["code"]
    seconds_until(lambda: code in published(store_file))
    time.sleep(0.2)  # the function's host reads the published file again when it changes
    before = len(LAMBDA_FOLLOW.findall(stack.output()))  # the redirect's invocations, from the request log
    visitors = [BROWSER, BROWSER, BOT, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148"]
    for user_agent in visitors * 3:
        headers = {"User-Agent": user_agent, "CloudFront-Viewer-Country": "DE"}
        assert stack.request("GET", f"/{code}", headers=headers).status == 302
    # Every follow was answered at the edge: no Lambda invocation for them
    time.sleep(0.1)  # the request log line is written once the response is out
    assert len(LAMBDA_FOLLOW.findall(stack.output())) == before
    assert wait_for_clicks(stack, code, keyed, expected=12, timeout=30) == 12
    time.sleep(2)  # redelivered batches keep coming: none may count again
    report = stack.request("GET", f"/links/{code}/stats", headers=keyed).json()
    assert (report["clicks"], report["bots"]) == (12, 3)
    assert report["repeat_clicks"] >= 6  # each person's second and later follows within the window
    assert report["top"]["country"][0] == {"value": "DE", "clicks": 12}
    assert report["top"]["answered"] == [{"value": "edge", "clicks": 12}]  # where they were answered
