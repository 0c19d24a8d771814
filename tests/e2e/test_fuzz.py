"""schemathesis fuzzes the local stack from the published OpenAPI document: every check it has,
no server error, every answer (status, content type, headers, body) as the document says.

Two checks ask for what an API Gateway HTTP API does not do, and are left out:
- unsupported_method wants 405 for a method a path has no route for; API Gateway answers
  404 {"message": "Not Found"} itself, before any function runs.
- positive_data_acceptance wants every schema-valid request accepted; a schema cannot say that
  `expires_at` is in the future and after `valid_from`, that a host is a real one, or that a cursor
  is one we gave out, so such requests rightly get a 422 naming the field.
And one is told of a status it did not know as a refusal: 413 (schemathesis.toml).

It runs on a stack of its own, on moto as `make dev` does: its thousand requests would use up
the shared stack's create allowance for the tests after it, and dynalite has no transactions
(custom slugs), which the other e2e tests cover on both stores.
"""

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import FIXED_KEY
from tests.e2e.running_stack import ROOT, RunningStack
from tools.developers.openapi import DOCUMENT

SCHEMATHESIS = ROOT / ".venv-fuzz" / "bin" / "schemathesis"
EXCLUDED_CHECKS = "unsupported_method,positive_data_acceptance"
# Bounded: about two minutes on these machines (stateful phase included), below the 4-minute budget.
EXAMPLES_PER_OPERATION = 40
RUN_TIMEOUT_SECONDS = 240


@pytest.fixture(scope="module")
def fuzzed_stack() -> Iterator[RunningStack]:
    started = RunningStack.start(SHORTLINK_API_KEY=FIXED_KEY)
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


@pytest.mark.slow
def test_the_published_document_fuzzes_clean(fuzzed_stack: RunningStack) -> None:
    if not SCHEMATHESIS.is_file():
        pytest.skip("schemathesis is installed by `make e2e` (.venv-fuzz)")
    stack = fuzzed_stack
    run = subprocess.run(
        [
            str(SCHEMATHESIS),
            "--config-file",
            str(Path(__file__).with_name("schemathesis.toml")),
            "run",
            str(DOCUMENT),
            "--url",
            stack.base_url,
            "--header",
            f"Authorization: Bearer {stack.api_key}",
            "--checks",
            "all",
            "--exclude-checks",
            EXCLUDED_CHECKS,
            "--max-examples",
            str(EXAMPLES_PER_OPERATION),
            # One request at a time, as one Lambda environment takes them.
            "--workers",
            "1",
            # Redirects point at the links' destinations: never followed.
            "--max-redirects",
            "0",
            "--request-timeout",
            "30",
            "--no-color",
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
    # Every operation of the document was tried, each with many requests.
    operations = sum(len(item) for item in json.loads(DOCUMENT.read_text())["paths"].values())
    assert re.search(rf"Tested: {operations}\b", run.stdout), run.stdout[-3000:]
    generated = re.search(r"(\d+) generated", run.stdout)
    assert generated is not None, run.stdout[-3000:]
    assert int(generated.group(1)) >= 20 * operations
