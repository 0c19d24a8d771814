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
from tests.e2e.running_stack import DYNALITE, Dynalite, RunningStack, free_port
from tools.developers.txt_records import TxtServer, TxtZone

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


class Running:
    """What the session started, kept until it ends: one dynalite, and the stack on each store.
    pytest tears a parametrized session fixture down whenever the parameter changes, and under
    pytest-xdist a worker's files alternate between the stores; kept here, neither restarts."""

    def __init__(self) -> None:
        self._dynalite: Dynalite | None = None
        # By the DynamoDB endpoint ("": the embedded moto)
        self._stacks: dict[str, RunningStack] = {}
        self._balancer_ports: dict[str, int] = {}  # each stack's load balancer front, beside its HTTP API
        # The DNS server the stacks verify workspace domains against: its TXT records are the tests' to set.
        self._dns: TxtServer | None = None

    def endpoints(self, store: str) -> dict[str, str]:
        """The environment that points the local stack's DynamoDB at this store."""
        if store == "moto":
            return {}
        if not DYNALITE.exists():
            pytest.skip("dynalite is not installed: run `npm ci` (make e2e does)")
        if self._dynalite is None:
            self._dynalite = Dynalite.start()
        return {"AWS_ENDPOINT_URL_DYNAMODB": self._dynalite.endpoint}

    def stack(self, endpoints: dict[str, str]) -> RunningStack:
        """The session's stack on the store these `endpoints` name."""
        store = endpoints.get("AWS_ENDPOINT_URL_DYNAMODB", "")
        if store not in self._stacks:
            # Loopback webhook receivers: tests/e2e/test_webhooks.py listens on 127.0.0.1.
            self._balancer_ports[store] = free_port()
            if self._dns is None:
                self._dns = TxtServer().start()
            started = RunningStack.start(
                endpoints=endpoints,
                SHORTLINK_API_KEY=FIXED_KEY,
                SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK="true",
                LOAD_BALANCER_PORT=str(self._balancer_ports[store]),
                # The click lake (tests/e2e/test_click_exports.py), its Parquet written every second.
                CLICK_LAKE="1",
                CLICK_LAKE_PORT=str(free_port()),
                CLICK_LAKE_BUFFER_SECONDS="1",
                DNS_RESOLVER=self._dns.address,  # not make dev's port 15353: test_readme serves that one
            )
            assert started.ready, f"local stack did not start:\n{started.output()}"
            self._stacks[store] = started
        return self._stacks[store]

    def behind_load_balancer(self) -> tuple[RunningStack, int]:
        """The session's stack on moto and the port of its load balancer front (LOAD_BALANCER_PORT)."""
        stack = self.stack(self.endpoints("moto"))
        return stack, self._balancer_ports[""]

    def dns_zone(self) -> TxtZone:
        """The TXT records every stack of the session reads (started with the first stack)."""
        assert self._dns is not None, "no stack started yet"
        return self._dns.zone

    def stop(self) -> None:
        stopped = {store: (stack.stop(), stack) for store, stack in self._stacks.items()}
        if self._dynalite is not None:
            self._dynalite.stop()
        if self._dns is not None:
            self._dns.stop()
        for store, (code, stack) in stopped.items():
            assert code == 0, f"the stack on {store or 'moto'} did not stop cleanly:\n{stack.output()}"


@pytest.fixture(scope="session")
def running() -> Iterator[Running]:
    kept = Running()
    yield kept
    kept.stop()


@pytest.fixture(scope="session", params=list(STORES))
def store(request: pytest.FixtureRequest, running: Running) -> dict[str, str]:
    """The environment that points the local stack's DynamoDB at this store."""
    return running.endpoints(request.param)


@pytest.fixture(scope="session")
def stack(store: dict[str, str], running: Running) -> RunningStack:
    return running.stack(store)


@pytest.fixture
def dns_zone(stack: RunningStack, running: Running) -> TxtZone:
    """The TXT records `stack` verifies workspace domains against (tools/developers/txt_records.py)."""
    return running.dns_zone()


@pytest.fixture
def auth(stack: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}


@pytest.fixture
def api(stack: RunningStack) -> ApiClient:
    """The link API over real HTTP, as the holder of the stack's key."""
    return ApiClient(over_http(stack), lambda: stack.api_key)
