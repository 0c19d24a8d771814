"""The local stack over real HTTP, on each DynamoDB the e2e tests run against: moto (what
`make dev` embeds) and dynalite (which refuses what DynamoDB refuses and moto lets pass).
SQS stays on the embedded moto either way (AWS_ENDPOINT_URL_DYNAMODB points at dynalite only).

A test that needs a DynamoDB feature dynalite lacks says so with
`@pytest.mark.dynamodb_features("TransactWriteItems")`: on dynalite it is skipped, naming it.
"""

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.api_client import ApiClient, over_http
from tests.e2e.running_stack import DYNALITE, Dynalite, RunningStack

FIXED_KEY = "sl_e2eTestKeyForTheDevStack00000000"


@dataclass(frozen=True)
class Store:
    name: str
    lacks: frozenset[str]  # DynamoDB operations it does not implement


STORES = {
    "moto": Store("moto", frozenset()),
    "dynalite": Store("dynalite", frozenset({"TransactWriteItems", "UpdateTimeToLive", "DynamoDB Streams"})),
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "dynamodb_features(*operations): DynamoDB operations the test needs")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or "store" not in callspec.params:
            continue
        store = STORES[callspec.params["store"]]
        needed = {name for marker in item.iter_markers("dynamodb_features") for name in marker.args}
        if missing := sorted(needed & store.lacks):
            item.add_marker(pytest.mark.skip(reason=f"{store.name} does not implement {', '.join(missing)}"))


@pytest.fixture(scope="session", params=list(STORES))
def store(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """The environment that points the local stack's DynamoDB at this store."""
    if request.param == "moto":
        yield {}
        return
    if not DYNALITE.exists():
        pytest.skip("dynalite is not installed: run `npm ci` (make e2e does)")
    dynalite = Dynalite.start()
    yield {"AWS_ENDPOINT_URL_DYNAMODB": dynalite.endpoint}
    dynalite.stop()


@pytest.fixture(scope="session")
def stack(store: dict[str, str]) -> Iterator[RunningStack]:
    # Loopback webhook receivers: tests/e2e/test_webhooks.py listens on 127.0.0.1.
    started = RunningStack.start(endpoints=store, SHORTLINK_API_KEY=FIXED_KEY, SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK="true")
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


@pytest.fixture
def auth(stack: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}


@pytest.fixture
def api(stack: RunningStack) -> ApiClient:
    """The link API over real HTTP, as the holder of the stack's key."""
    return ApiClient(over_http(stack), lambda: stack.api_key)
