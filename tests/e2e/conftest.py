from collections.abc import Iterator

import pytest

from tests.e2e.localstack import LocalStack

FIXED_KEY = "sl_e2eTestKeyForTheLocalStack000000"


@pytest.fixture(scope="session")
def stack() -> Iterator[LocalStack]:
    started = LocalStack.start(SHORTLINK_API_KEY=FIXED_KEY)
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


@pytest.fixture
def auth(stack: LocalStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}
