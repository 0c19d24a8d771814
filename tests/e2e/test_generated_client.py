"""A Python client generated from the published OpenAPI document (openapi-python-client, in
.venv-client, which `make e2e` builds) runs Getting started against the local stack: every
operation is generated, and the stats come back typed. The client is generated into a temporary
directory, never into the repository."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.running_stack import ROOT, RunningStack
from tools.developers.openapi import DOCUMENT

CLIENT_VENV = ROOT / ".venv-client"
GENERATOR = CLIENT_VENV / "bin" / "openapi-python-client"
PACKAGE = "shortlink_client"
# The QR code's images (SVG, PNG) are media types the generator leaves untyped: the operation is
# generated, its answer is the response's bytes.
UNTYPED_ANSWERS = ("GET /links/{code}/qr",)


@pytest.fixture(scope="module")
def generated_client(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if not GENERATOR.is_file():
        pytest.skip("openapi-python-client is installed by `make e2e` (.venv-client)")
    where = tmp_path_factory.mktemp("client")
    run = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(DOCUMENT), "--meta", "none", "--output-path", str(where / PACKAGE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=where,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return where, run.stdout + run.stderr


def test_every_operation_of_the_document_is_generated(generated_client):
    where, output = generated_client
    assert "will not be generated" not in output, output
    warned = {
        line.removeprefix("WARNING parsing ").split(" within")[0]
        for line in output.splitlines()
        if line.startswith("WARNING parsing ")
    }
    assert warned <= set(UNTYPED_ANSWERS), output
    document = json.loads(DOCUMENT.read_text())
    operations = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    generated = {path.stem for path in (where / PACKAGE / "api" / "default").glob("*.py")}
    assert {snake(operation) for operation in operations} <= generated


def snake(operation_id: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation_id)


def test_getting_started_runs_through_the_generated_client(generated_client, stack: RunningStack):
    where, _ = generated_client
    run = subprocess.run(
        [
            str(CLIENT_VENV / "bin" / "python"),
            str(Path(__file__).with_name("client_flow.py")),
            stack.base_url,
            stack.api_key,
        ],
        env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "counted: clicks 2, bots 1" in run.stdout
