"""The local stack says clearly when its port is taken, and stops cleanly on Ctrl-C."""

import signal
import socket
import subprocess
import sys
import time

import boto3

from tests.e2e.localstack import LocalStack, free_port


def test_a_taken_port_is_reported_clearly(stack):
    second = LocalStack.start(timeout=60, PORT=str(stack.port))
    assert second.process.wait(timeout=60) == 2
    assert f"port {stack.port} is already in use" in second.output()


def test_ctrl_c_stops_cleanly_and_a_key_is_generated_when_none_is_given():
    started = LocalStack.start()
    try:
        assert started.ready, started.output()
        assert started.api_key.startswith("sl_")
        assert started.request("GET", "/nothing-here").status == 404
    finally:
        code = started.stop(signal.SIGINT)
    assert code == 0, started.output()
    assert "Stopped." in started.output()
    assert "Traceback" not in started.output()


def test_an_external_endpoint_replaces_the_embedded_one(tmp_path):
    # Given a DynamoDB/SQS-compatible endpoint of the user's own (a separate moto server here)
    port = free_port()
    external = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_for_port(port)
        # When the local stack starts with AWS_ENDPOINT_URL
        started = LocalStack.start(AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x")
        try:
            assert started.ready, started.output()
            assert f"DynamoDB/SQS endpoint: {endpoint}\n" in started.output()
            assert "embedded moto" not in started.output()
            # Then the template's tables and queues are on that endpoint, and the API works on it
            session = boto3.Session(aws_access_key_id="x", aws_secret_access_key="x", region_name="us-east-1")
            dynamodb = session.client("dynamodb", endpoint_url=endpoint)
            sqs = session.client("sqs", endpoint_url=endpoint)
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
    finally:
        external.terminate()
        external.wait(timeout=10)


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
