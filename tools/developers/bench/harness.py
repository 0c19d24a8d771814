"""The bench's harness: the embedded moto server, the template's resources and functions in
process, links to follow, and handlers run as Lambda runs them (timed alone, their extension
working after the response). Measurements use it; nothing here measures anything itself."""

import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from shortlink import wiring as services
from shortlink.settings.clicks import ClickSettings
from tests.aws_calls import recording_aws_calls
from tests.e2e.running_stack import free_port
from tests.events import bearer, http_event
from tools.developers.devstack.extensions_api import ExtensionsApi
from tools.developers.devstack.lambda_runtime import Handler, LambdaContext
from tools.developers.devstack.runner import InProcessRunner

ROOT = Path(__file__).resolve().parents[3]
REGION = "us-east-1"
CHUNK = 250  # each chunk of redirects gets a fresh clicks queue: moto's SQS slows as a queue fills
TURN = 10  # calls of one event in a row when two are timed in turns (UnderLambda.timed_in_turns)
STARTED = time.monotonic()


def progress(message: str) -> None:
    print(f"[bench {time.monotonic() - STARTED:6.1f}s] {message}", file=sys.stderr, flush=True)


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] / 1000, 2)

    return {"p50_us": at(0.50), "p99_us": at(0.99), "samples": len(ordered)}


def median_us(samples_ns: list[int]) -> float:
    return round(statistics.median(samples_ns) / 1000, 2)


def time_calls(call: Callable[[int], Any], count: int, warmup: int = 200) -> list[int]:
    for i in range(min(warmup, count)):
        call(i)
    samples = []
    clock = time.perf_counter_ns
    for i in range(count):
        started = clock()
        call(i)
        samples.append(clock() - started)
    return samples


def follow_event(code: str) -> dict[str, Any]:
    return http_event("GET", f"/{code}", route="/{code}", path_parameters={"code": code})


def follow_event_through_load_balancer(code: str) -> dict[str, Any]:
    """The same follow as a load balancer sends it (single-value headers, as the redirect's target
    group has them: tools.developers.devstack.load_balancer)."""
    from tools.developers.devstack.load_balancer import load_balancer_event, target_group_arn

    sent = follow_event(code)
    headers = list(sent["headers"].items())
    client = sent["requestContext"]["http"]["sourceIp"]
    arn = target_group_arn("RedirectFunction", REGION)
    return load_balancer_event("GET", f"/{code}", "", headers, b"", client, False, arn, base64_body=False)


@dataclass
class Stack:
    runner: InProcessRunner
    sqs: Any
    queue_urls: dict[str, str]
    template: Any


def start_endpoint() -> subprocess.Popen[bytes]:
    """The embedded moto server, in a child process so that its work never competes with the
    measured handlers for this process's GIL (in Lambda, DynamoDB and SQS are elsewhere too)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tools.developers.moto_transactions", "-H", "127.0.0.1", "-p", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("the moto server did not start") from None
            time.sleep(0.1)
    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
    return server


def start_stack() -> Stack:
    from tools.developers.devstack.local_env import function_environment
    from tools.developers.devstack.resources import create_queues, create_tables
    from tools.developers.devstack.template import LocalTemplate

    template = LocalTemplate.load(ROOT / "template.yaml")
    sqs = boto3.client("sqs")
    create_tables(template, boto3.client("dynamodb"))
    queue_urls = create_queues(template, sqs)
    os.environ.update(function_environment(template, queue_urls))
    os.environ["CREATE_RATE_LIMIT_PER_MINUTE"] = "0"  # the bench creates 1,300 links with one key
    runner = InProcessRunner(template.functions, ROOT, REGION)
    runner.load_all()
    return Stack(runner, sqs, queue_urls, template)


def create_links(stack: Stack, count: int, prefix: str) -> tuple[list[str], Any, list[int]]:
    """Codes, the AWS calls made, and each create's duration (ns)."""
    from tools.developers.devstack.__main__ import ensure_api_key

    key = ensure_api_key(os.environ["API_KEYS_TABLE"], os.environ.get("BENCH_API_KEY"))
    os.environ["BENCH_API_KEY"] = key
    codes = []
    durations: list[int] = []
    with recording_aws_calls() as calls:
        for i in range(count):
            event = http_event("POST", "/links", headers=bearer(key), body={"url": f"https://example.com/{prefix}{i}"})
            started = time.perf_counter_ns()
            response = stack.runner.call("CreateFunction", event)
            durations.append(time.perf_counter_ns() - started)
            codes.append(json.loads(response["body"])["code"])
    return codes, calls, durations


class UnderLambda:
    """A handler as Lambda runs it: timed alone, its extension sending the click after it, the
    next invocation starting only once the extension has asked for the next event."""

    def __init__(self, stack: Stack, handler: Handler, extension: ExtensionsApi) -> None:
        self.stack = stack
        self.handler = handler
        self.extension = extension
        self.context = LambdaContext("RedirectFunction", 512, 10, REGION)

    @classmethod
    def redirect(cls, stack: Stack) -> "UnderLambda":
        return cls(stack, stack.runner.handler("RedirectFunction"), stack.runner.extensions["RedirectFunction"])

    def fresh_clicks_queue(self) -> None:
        self.extension.wait_until_idle(10)
        url = self.stack.sqs.create_queue(QueueName=f"BenchClicks{time.monotonic_ns()}")["QueueUrl"]
        os.environ["CLICKS_QUEUE_URL"] = url
        services.forget_settings()
        services.click_publisher.cache_clear()

    def timed(self, events: list[dict[str, Any]], warmup: int) -> list[int]:
        """The handler's own time per event: from the call to the response, nothing around it.
        The extension's time after each response goes to `after_response` (Lambda bills it)."""
        samples: list[int] = []
        self.after_response: list[int] = []
        clock = time.perf_counter_ns
        payloads = [json.dumps(event) for event in events[:warmup] + events]
        for index, payload in enumerate(payloads, start=1 - min(warmup, len(events))):
            self.extension.wait_until_idle(10)
            self.extension.begin_invocation()
            # As Lambda's runtime client does: the event is parsed just before the handler runs.
            event = json.loads(payload)
            started = clock()
            self.handler(event, self.context)
            elapsed = clock() - started
            self.extension.release()
            released = clock()
            self.extension.wait_until_idle(10)
            if index > 0:
                samples.append(elapsed)
                self.after_response.append(clock() - released)
                if index % CHUNK == 0:
                    self.fresh_clicks_queue()
        return samples

    def timed_in_turns(self, first: dict[str, Any], second: dict[str, Any], count: int) -> tuple[list[int], list[int]]:
        """Two events' times in the same moments, `count` of each: in turns of TURN calls, the
        first call of each turn left out (it follows the other event's calls), so each kept time is
        one of a run of like calls, as an environment behind one front makes them, and a busy
        machine's changing load weighs on both alike."""
        events = ([first] * TURN + [second] * TURN) * -(-count // (TURN - 1))
        samples = self.timed(events, warmup=2 * TURN)
        kept: tuple[list[int], list[int]] = ([], [])
        for index, elapsed in enumerate(samples):
            if index % TURN:
                kept[index // TURN % 2].append(elapsed)
        return kept[0][:count], kept[1][:count]

    def calls_per_request(self, events: list[dict[str, Any]]) -> dict[str, float]:
        """AWS calls per request made by the handler (before its response) and by the extension
        (after it), counted by the thread that made them: a held click sent between invocations
        is the extension's, whenever it goes."""
        window = services.settings_of(ClickSettings).pack_window_ms / 1000
        handler_thread = threading.current_thread()
        with recording_aws_calls() as recorded:
            for event in events:
                self.extension.wait_until_idle(10)
                self.extension.begin_invocation()
                self.handler(event, self.context)
                self.extension.release()
            self.extension.wait_until_idle(10)
            time.sleep(window + 0.5)  # the last held clicks go
        before = recorded.made_on(handler_thread)
        after = len(recorded.calls) - before
        return {"aws_calls_before_response": before / len(events), "aws_calls_after_response": after / len(events)}


class QuietCycle:
    """The same conditions for every handler without an extension of its own: before each timed
    call, one SendMessage runs (what our extension does between our invocations), so that no
    handler is timed with caches warmer than ours."""

    def __init__(self, stack: Stack) -> None:
        self.sqs = stack.sqs
        self.queue = os.environ["CLICKS_QUEUE_URL"]
        self.sent = 0

    def timed(self, handler: Callable[[], Any], count: int, warmup: int = 100) -> list[int]:
        """Time `handler` alone, one SendMessage before each call."""
        samples: list[int] = []
        clock = time.perf_counter_ns
        for index in range(warmup + count):
            self.between_invocations()
            started = clock()
            handler()
            elapsed = clock() - started
            if index >= warmup:
                samples.append(elapsed)
        return samples

    def between_invocations(self) -> None:
        if self.sent % CHUNK == 0:
            self.queue = self.sqs.create_queue(QueueName=f"BenchFloor{time.monotonic_ns()}")["QueueUrl"]
        self.sqs.send_message(QueueUrl=self.queue, MessageBody='{"code": "floor"}')
        self.sent += 1
