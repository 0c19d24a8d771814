"""Click packs from the redirect's extension to the queue: through the local stack's Extensions API
emulation, a real SIGTERM, and the replay of what could not be queued."""

import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.clicks.events import ClickPack
from shortlink.redirect import click_sending
from shortlink.redirect.lost_clicks import LOST_CLICK_EVENT
from tests.events import bearer, http_event
from tests.integration.conftest import ROOT
from tools.developers.devstack.runner import InProcessRunner
from tools.developers.devstack.sqs_trigger import sqs_event
from tools.operators import replay_clicks

REDIRECT = "RedirectFunction"
QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:ClicksQueue"


@pytest.fixture
def runner(aws, template, monkeypatch) -> Iterator[InProcessRunner]:
    """The redirect as the local stack runs it, sending every click at once."""
    monkeypatch.setenv("CLICK_PACK_WINDOW_MS", "0")
    services.reset()
    started = InProcessRunner({REDIRECT: template.functions[REDIRECT]}, ROOT, "us-east-1")
    started.load_all()
    yield started
    started.stop()


def new_link(aws, handlers) -> tuple[str, str]:
    key = aws.new_api_key()
    event = http_event("POST", "/links", headers=bearer(key), body={"url": "https://example.com/delivered"})
    return key, str(json.loads(handlers["CreateFunction"](event)["body"])["code"])


def follow_event(code: str) -> dict[str, Any]:
    return http_event("GET", f"/{code}", route="/{code}", path_parameters={"code": code})


def queued(aws) -> list[dict[str, Any]]:
    """Every message on the clicks queue, taken off it."""
    taken = []
    queue = aws.queue_urls["ClicksQueue"]
    while messages := aws.sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", []):
        taken += messages
        entries = [{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)]
        aws.sqs.delete_message_batch(QueueUrl=queue, Entries=entries)
    return taken


def packs_of(messages: list[dict[str, Any]]) -> list[ClickPack]:
    return [ClickPack.from_message(message["Body"], message["MessageId"]) for message in messages]


def ingest(handlers, messages: list[dict[str, Any]]) -> None:
    assert handlers["IngestFunction"](sqs_event(messages, QUEUE_ARN, "us-east-1"), None) == {"batchItemFailures": []}


def clicks_counted(handlers, key: str, code: str) -> int:
    event = http_event(
        "GET", f"/links/{code}/stats", route="/links/{code}/stats", path_parameters={"code": code}, headers=bearer(key)
    )
    return int(json.loads(handlers["ManageFunction"](event)["body"])["clicks"])


@pytest.mark.slow
def test_a_response_that_fails_to_be_written_neither_repeats_nor_shifts_clicks(aws, handlers, runner):
    key, code = new_link(aws, handlers)
    extension = runner.extensions[REDIRECT]
    # Given a follow whose response never reaches the visitor: the emulation never releases it
    assert runner.call(REDIRECT, follow_event(code), after_response=lambda release: None)["statusCode"] == 302
    assert queued(aws) == []
    # When the link is followed again
    assert runner.call(REDIRECT, follow_event(code))["statusCode"] == 302
    assert extension.wait_until_idle(10)
    # Then both clicks are queued, each once, at the end of that invocation
    first = queued(aws)
    assert sum(len(pack.clicks) for pack in packs_of(first)) == 2
    # And the next follow queues exactly its own click when it ends: nothing runs behind
    assert runner.call(REDIRECT, follow_event(code))["statusCode"] == 302
    assert extension.wait_until_idle(10)
    later = queued(aws)
    assert sum(len(pack.clicks) for pack in packs_of(later)) == 1
    assert len({click.click_id for pack in packs_of(first + later) for click in pack.clicks}) == 3
    # Ingest counts 3 clicks for 3 follows
    ingest(handlers, first + later)
    assert clicks_counted(handlers, key, code) == 3


def test_a_lost_pack_is_replayed_as_the_same_pack_and_counted_once(aws, handlers, monkeypatch, caplog):
    key, code = new_link(aws, handlers)
    real_queue = aws.queue_urls["ClicksQueue"]
    # Given a queue that does not answer (outside Lambda the click is sent inline)
    monkeypatch.setenv("CLICKS_QUEUE_URL", real_queue + "-missing")
    monkeypatch.setattr(click_sending, "RETRY_PAUSE_SECONDS", 0)
    services.reset()
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        assert handlers[REDIRECT](follow_event(code))["statusCode"] == 302
    lines = [
        f"[ERROR] req-id {record.getMessage()}\n"
        for record in caplog.records
        if LOST_CLICK_EVENT in record.getMessage()
    ]
    [logged] = [json.loads(line.split(" ", 2)[2]) for line in lines]
    # When the log is replayed twice (a replay that was run again)
    for _ in range(2):
        assert replay_clicks.main(["--queue-url", real_queue], lines=lines) == 0
    # Then each replay is the pack that was lost, under its id
    messages = queued(aws)
    packs = packs_of(messages)
    assert [pack.pack_id for pack in packs] == [logged["pack"]] * 2
    assert [pack.clicks[0].click_id for pack in packs] == [logged["click"]["click_id"]] * 2
    # And ingest counts its click once
    monkeypatch.setenv("CLICKS_QUEUE_URL", real_queue)
    services.reset()
    ingest(handlers, messages)
    assert clicks_counted(handlers, key, code) == 1


SHUTDOWN_PROBE = """
import json, os, signal, sys, time
import boto3
from moto import mock_aws
from tools.developers.devstack.extensions_api import ExtensionsApi

with mock_aws():
    queue = boto3.client("sqs").create_queue(QueueName="ClicksQueue")["QueueUrl"]
    os.environ["CLICKS_QUEUE_URL"] = queue

    def report(signum, frame):  # what ran before: the redirect's handler chains to it
        sqs = boto3.client("sqs")
        bodies = [m["Body"] for m in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])]
        print(json.dumps(bodies), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)
    api = ExtensionsApi("RedirectFunction", "us-east-1")
    os.environ["AWS_LAMBDA_RUNTIME_API"] = api.address
    from shortlink import wiring as services
    from shortlink.redirect.request import RedirectRequest

    dispatcher = services.click_dispatcher()
    event = {"headers": {"user-agent": "probe"}, "requestContext": {"http": {"sourceIp": "203.0.113.9"}}}
    for n in range(5):
        api.wait_until_idle(10)
        api.begin_invocation()
        dispatcher.record_click(f"code{n}", RedirectRequest(event, services.request_reading()), from_cache=True)
        dispatcher.invocation_done()
        api.release()
    api.wait_until_idle(10)
    print("held", flush=True)
    time.sleep(60)
"""


def test_sigterm_sends_the_held_clicks_before_the_environment_ends(aws, template):
    from tools.developers.devstack.local_env import function_environment

    # Given a redirect environment that sent its first click and holds four more (a long window)
    env = {
        **os.environ,
        **function_environment(template, {}),
        "CLICK_PACK_WINDOW_MS": "60000",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)]),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", SHUTDOWN_PROBE], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "held"
        # When Lambda ends the environment
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=30)
    finally:
        child.kill()
    # Then the held clicks were queued before it ended, in one pack, with their metrics
    packs = [ClickPack.from_message(body, "m") for body in json.loads(out.strip().splitlines()[-1])]
    assert sorted(len(pack.clicks) for pack in packs) == [1, 4]
    assert sorted(click.code for pack in packs for click in pack.clicks) == [f"code{n}" for n in range(5)]
    assert all(click.counts == {"CacheHits": 1} for pack in packs for click in pack.clicks)
    assert child.returncode == 0
