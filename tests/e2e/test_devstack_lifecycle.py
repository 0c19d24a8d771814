"""The local stack says clearly when its port is taken, stops cleanly on every stop signal, uses
the endpoints it is given (and says so), and the admin command finds it where it runs."""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from tests.e2e.running_stack import ROOT, RunningStack, free_port


def test_a_taken_port_is_reported_clearly(stack):
    second = RunningStack.start(timeout=60, PORT=str(stack.port))
    assert second.process.wait(timeout=60) == 2
    assert f"port {stack.port} is already in use" in second.output()


def test_ctrl_c_stops_cleanly_and_a_key_is_generated_when_none_is_given():
    started = RunningStack.start()
    try:
        assert started.ready, started.output()
        assert started.api_key.startswith("sl_")
        assert started.request("GET", "/nothing-here").status == 404
    finally:
        code = started.stop(signal.SIGINT)
    assert code == 0, started.output()
    assert "Stopped." in started.output()
    assert "Traceback" not in started.output()


def assert_stopped_cleanly(started: RunningStack) -> None:
    assert "Stopped." in started.output()
    assert "Traceback" not in started.output()


def test_sigint_stops_a_stack_started_in_the_background():
    # A non-interactive shell starts background jobs with SIGINT ignored; the stack still stops on it.
    ignore_sigint = {"preexec_fn": lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)}
    started = RunningStack.start(popen=ignore_sigint)
    try:
        assert started.ready, started.output()
    finally:
        code = started.stop(signal.SIGINT)
    assert code == 0, started.output()
    assert_stopped_cleanly(started)


@pytest.mark.parametrize("delay", [0.0, 3.0])
def test_sigterm_to_the_group_of_make_dev_stops_it_without_a_traceback(delay):
    # Given `make dev` in its own process group (as a process manager or a terminal runs it), ready
    started = RunningStack.start(command=["make", "--no-print-directory", "dev"], popen={"start_new_session": True})
    try:
        assert started.ready, started.output()
        time.sleep(delay)
    finally:
        # When the whole group gets SIGTERM: make and the stack, each of which passes it on
        os.killpg(started.process.pid, signal.SIGTERM)
        code = started.process.wait(timeout=30)
    # Then the stack stops once, through its cleanups, and says so (make itself dies of the signal)
    assert code in (0, -signal.SIGTERM), started.output()
    assert_stopped_cleanly(started)
    assert started.output().count("Stopping the local stack...") == 1


def test_a_stop_signal_during_startup_leaves_no_traceback():
    started = RunningStack.start(timeout=0)
    time.sleep(2)  # importing or starting, not yet serving
    code = started.stop()
    assert "Traceback" not in started.output(), started.output()
    assert code in (0, -signal.SIGTERM), started.output()  # killed while importing, or stopped


@pytest.fixture
def external_moto() -> Iterator[str]:
    """A DynamoDB/SQS-compatible endpoint of the user's own: a separate moto server."""
    port = free_port()
    external = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        external.terminate()
        external.wait(timeout=10)


def clients(endpoint: str) -> tuple[Any, Any]:
    session = boto3.Session(aws_access_key_id="x", aws_secret_access_key="x", region_name="us-east-1")
    return session.client("dynamodb", endpoint_url=endpoint), session.client("sqs", endpoint_url=endpoint)


@pytest.mark.parametrize(
    "variables",
    [
        ("AWS_ENDPOINT_URL",),
        ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"),
    ],
    ids=["global", "each"],
)
def test_external_endpoints_replace_the_embedded_one(external_moto, variables):
    endpoint = external_moto
    # Given MOTO_PORT taken: an embedded moto started anyway could not bind it
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        moto_port = str(taken.getsockname()[1])
        # When the local stack starts with the endpoint variables
        given = dict.fromkeys(variables, endpoint)
        started = RunningStack.start(MOTO_PORT=moto_port, AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", **given)
        try:
            assert started.ready, started.output()
            assert f"DynamoDB/SQS endpoint: {endpoint}\n" in started.output()
            assert "embedded moto" not in started.output()
            # Then the template's tables and queues are on that endpoint, and the API works on it
            dynamodb, sqs = clients(endpoint)
            tables = dynamodb.list_tables()["TableNames"]
            assert {"LinksTable", "ApiKeysTable", "CountersTable", "ClickStatsTable"} <= set(tables)
            queues = sqs.list_queues()["QueueUrls"]
            assert any(url.endswith("/ClicksQueue") for url in queues)
            headers = {"Authorization": f"Bearer {started.api_key}", "Content-Type": "application/json"}
            assert started.request("POST", "/links", {"url": "https://example.com"}, headers).status == 201
            links = dynamodb.scan(TableName="LinksTable")["Items"]
            assert [item["url"]["S"] for item in links] == ["https://example.com/"]  # as browsers read it
        finally:
            assert started.stop() == 0


def test_a_dynamodb_of_its_own_leaves_sqs_to_the_embedded_moto_and_the_banner_says_which(external_moto):
    started = RunningStack.start(AWS_ENDPOINT_URL_DYNAMODB=external_moto)
    try:
        assert started.ready, started.output()
        embedded = f"http://127.0.0.1:{started.moto_port}"
        assert f"DynamoDB endpoint: {external_moto}\n" in started.output()
        assert f"SQS endpoint:      {embedded} (embedded moto)\n" in started.output()
        dynamodb, _ = clients(external_moto)
        _, embedded_sqs = clients(embedded)
        assert "LinksTable" in dynamodb.list_tables()["TableNames"]
        assert any(url.endswith("/ClicksQueue") for url in embedded_sqs.list_queues()["QueueUrls"])
    finally:
        assert started.stop() == 0


def admin(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AWS_ENDPOINT_URL")}
    return subprocess.run(
        [sys.executable, "-m", "tools.operators.admin", "--local", *args],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("store", ["moto"], indirect=True)  # MOTO_PORT is what the stack embeds
def test_the_admin_command_finds_the_local_stack_on_moto_port_and_says_when_nothing_answers(stack):
    # Given the stack on a MOTO_PORT of its own: a key created with --local lands in its table
    created = admin("keys", "create", "--name", "from-admin", MOTO_PORT=str(stack.moto_port))
    assert created.returncode == 0, created.stderr
    dynamodb, _ = clients(f"http://127.0.0.1:{stack.moto_port}")
    # (the first owner's membership shares the table, without a name)
    names = [item["name"]["S"] for item in dynamodb.scan(TableName="ApiKeysTable")["Items"] if "name" in item]
    assert "from-admin" in names
    # When nothing listens there: one sentence and exit code 2, no traceback
    missing = admin("keys", "list", MOTO_PORT=str(free_port()))
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: ")
    assert "make dev" in missing.stderr
    assert "Traceback" not in missing.stderr


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


NOWHERE = str(ROOT / "no-such-aws-file")


def without_credentials(**env: str) -> dict[str, str]:
    """The environment of a user with no AWS credentials at all (no keys, profile or files)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_ENDPOINT_URL", "AWS_PROFILE"))}
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        environment.pop(variable, None)
    return {
        **environment,
        "AWS_SHARED_CREDENTIALS_FILE": NOWHERE,
        "AWS_CONFIG_FILE": NOWHERE,
        "AWS_EC2_METADATA_DISABLED": "true",
        **env,
    }


# Hosts that cannot resolve: were the stack to call them, nothing would leave this machine.
ELSEWHERE = {
    "AWS_ENDPOINT_URL_DYNAMODB": "http://dynamodb.invalid:8000",
    "AWS_ENDPOINT_URL_SQS": "http://sqs.invalid:9324",
}


@pytest.mark.parametrize(
    ("profile", "said"), [({}, "no AWS credentials found"), ({"AWS_PROFILE": "nosuch"}, "profile (nosuch)")]
)
def test_endpoints_elsewhere_without_credentials_are_refused_in_one_line(profile, said):
    # Given endpoints that are not on this machine and no credentials (or a profile that is not there)
    run = subprocess.run(
        [sys.executable, "-m", "tools.developers.devstack"],
        cwd=ROOT,
        env=without_credentials(PORT=str(free_port()), MOTO_PORT=str(free_port()), **ELSEWHERE, **profile),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # Then it stops before any call, saying what is missing in one line
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("error: "), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert said in run.stderr
    for endpoint in ELSEWHERE.values():
        assert endpoint in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_endpoints_need_no_credentials(external_moto, host):
    # Given the user's own DynamoDB and SQS on this machine, and no AWS credentials at all
    endpoint = external_moto.replace("127.0.0.1", host)
    given = {"AWS_ENDPOINT_URL_DYNAMODB": endpoint, "AWS_ENDPOINT_URL_SQS": endpoint}
    started = RunningStack.start(
        endpoints=given,
        AWS_ACCESS_KEY_ID="",  # botocore reads an empty variable as none
        AWS_SECRET_ACCESS_KEY="",
        AWS_SESSION_TOKEN="",
        AWS_SHARED_CREDENTIALS_FILE=NOWHERE,
        AWS_CONFIG_FILE=NOWHERE,
        AWS_EC2_METADATA_DISABLED="true",
    )
    try:
        # Then the stack uses placeholder credentials there, and works
        assert started.ready, started.output()
        headers = {"Authorization": f"Bearer {started.api_key}", "Content-Type": "application/json"}
        assert started.request("POST", "/links", {"url": "https://example.com"}, headers).status == 201
        dynamodb, _ = clients(external_moto)
        assert "LinksTable" in dynamodb.list_tables()["TableNames"]
    finally:
        assert started.stop() == 0
