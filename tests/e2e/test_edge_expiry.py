"""A link that leaves the edge by expiry alone, in the local stack (EDGE_TIER=1) over real HTTP:
no edit and no stream record says it expired. Once `expires_at` is reached the function passes
its follows on by itself, while the store still holds the entry, and the origin answers 410;
the sync's reconciliation then removes the entry (TTL deletion, AWS's other way out, does not
run locally)."""

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_edge_sync import BROWSER, LAMBDA_FOLLOW, auth, edge_stack, published, seconds_until

RECONCILE_SECONDS = 15  # long enough that the entry outlives the expiry by a few seconds
LIFETIME = timedelta(seconds=6)


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningStack, Path]]:
    yield from edge_stack(
        tmp_path_factory.mktemp("edge-expiry") / "store.json",
        propagation_ms=300,
        reconcile_seconds=RECONCILE_SECONDS,
    )


def lambda_follows(stack: RunningStack) -> int:
    time.sleep(0.1)  # the request log line is written once the response is out
    return len(LAMBDA_FOLLOW.findall(stack.output()))


def test_an_expired_link_is_passed_on_at_once_and_then_leaves_the_store(edge):
    stack, store_file = edge
    expires_at = (datetime.now(UTC) + LIFETIME).replace(microsecond=0)
    body = {"url": "https://example.com/short-lived", "expires_at": expires_at.isoformat().replace("+00:00", "Z")}
    created = stack.request("POST", "/links", body, auth(stack))
    assert created.status == 201, created.json()
    code = created.json()["code"]
    # Given the link in the store, answered at the edge before its expiry
    seconds_until(lambda: code in published(store_file), timeout=LIFETIME.total_seconds())
    time.sleep(0.2)  # the function's host reads the published file again when it changes
    before = lambda_follows(stack)
    follow = stack.request("GET", f"/{code}", headers={"User-Agent": BROWSER})
    assert datetime.now(UTC) < expires_at, "the machine was too slow to follow before the expiry"
    assert (follow.status, follow.headers.get("location")) == (302, "https://example.com/short-lived")
    assert lambda_follows(stack) == before
    # When its expiry is reached, nothing else changing
    time.sleep(max((expires_at - datetime.now(UTC)).total_seconds(), 0) + 0.05)
    held = code in published(store_file)
    follow = stack.request("GET", f"/{code}", headers={"User-Agent": BROWSER})
    # Then the function passes the follow on, though the store still held the entry, and the origin says 410
    assert held, "reconciled before the follow: the test proves nothing"
    assert code in published(store_file), "reconciled during the follow: the test proves nothing"
    assert follow.status == 410
    assert lambda_follows(stack) == before + 1
    # And the sync's reconciliation removes the entry within its period (plus propagation)
    seconds_until(lambda: code not in published(store_file), timeout=RECONCILE_SECONDS + 10)  # fails past it
