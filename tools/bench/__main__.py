"""`make bench`: one JSON object with the redirect's latency, AWS calls and cold start, measured
in this run against the same floors and naive handler, plus create and ingest costs, and what
counting clicks and reading their stats cost in DynamoDB units and bytes (click_costs.py).

Everything runs in-process against an embedded moto server on loopback; nothing here is a test
and nothing asserts a timing. Results go to stdout and bench-results/latest.json.
"""

import json
import logging
import os
import platform
import shutil
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "layers" / "common"))  # shortlink and package_layer

import boto3  # noqa: E402

from shortlink import wiring as services  # noqa: E402
from shortlink.config import settings  # noqa: E402
from tests.aws_calls import recording_aws_calls  # noqa: E402
from tests.e2e.localstack import free_port  # noqa: E402
from tests.events import bearer, http_event  # noqa: E402
from tools.bench.click_costs import measure_click_costs, metered  # noqa: E402
from tools.bench.write_units import WRITES  # noqa: E402
from tools.devstack.extensions_api import ExtensionsApi  # noqa: E402
from tools.devstack.lambda_runtime import Handler, LambdaContext  # noqa: E402
from tools.devstack.runner import InProcessRunner  # noqa: E402

REGION = "us-east-1"
CHUNK = 250  # each chunk of redirects gets a fresh clicks queue: moto's SQS slows as a queue fills
HIT_CALLS = 5_000
MISS_CALLS = 1_000
FLOOR_CALLS = 5_000
NAIVE_CALLS = 1_000
CALL_COUNT_SAMPLE = 100
COLD_STARTS = 11
CREATES = 200
CLICKS = 1_000
CLICK_LINKS = 20
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
        [sys.executable, "-m", "tools.moto_transactions", "-H", "127.0.0.1", "-p", str(port)],
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
    from tools.devstack.local_env import function_environment
    from tools.devstack.resources import create_queues, create_tables
    from tools.devstack.template import LocalTemplate

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
    from tools.devstack.__main__ import ensure_api_key

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
        settings.cache_clear()
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

    def calls_per_request(self, events: list[dict[str, Any]]) -> dict[str, float]:
        """AWS calls per request made by the handler (before its response) and by the extension
        (after it), counted by the thread that made them: a held click sent between invocations
        is the extension's, whenever it goes."""
        window = settings().click_pack_window_ms / 1000
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


def own_stack_floor() -> tuple[Handler, ExtensionsApi]:
    """A constant 302 through our redirect's own stack: a metric counted and a click handed to
    an internal extension, which sends it and emits the metric after the response."""
    from shortlink.redirect.click_dispatch import click_dispatcher
    from tools.bench.handlers import FOUND

    api = ExtensionsApi("OwnStackFloor", REGION)
    os.environ["AWS_LAMBDA_RUNTIME_API"] = api.address
    try:
        dispatcher = click_dispatcher(services.click_publisher)
    finally:
        del os.environ["AWS_LAMBDA_RUNTIME_API"]

    def floor(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            dispatcher.count("CacheHits")
            dispatcher.record_click("floor", event)
            return FOUND
        finally:
            dispatcher.invocation_done()

    return floor, api


def measure_redirects(stack: Stack, hit_code: str, miss_codes: list[str]) -> dict[str, Any]:
    from tools.bench import handlers as floors
    from tools.bench import naive

    ours = UnderLambda.redirect(stack)
    own_floor, own_api = own_stack_floor()
    floor = UnderLambda(stack, own_floor, own_api)
    hit_event = follow_event(hit_code)
    progress(f"our redirect on cache hits and the own-stack floor, x{HIT_CALLS} each, interleaved")
    # In alternating rounds: whatever else this shared machine does weighs on both alike.
    hit: list[int] = []
    hit_after: list[int] = []
    own_stack: list[int] = []
    for _ in range(HIT_CALLS // CHUNK):
        hit += ours.timed([hit_event] * CHUNK, warmup=20)
        hit_after += ours.after_response
        own_stack += floor.timed([hit_event] * CHUNK, warmup=20)
    own_api.wait_until_idle(10)
    own_api.stop()
    # Counted on a freshly cached link: the timed rounds outlast its TTL.
    services.forget_cached_links()
    ours.timed([hit_event], warmup=0)
    hit_calls = ours.calls_per_request([hit_event] * CALL_COUNT_SAMPLE)
    progress(f"our redirect, cache misses x{MISS_CALLS}")
    services.forget_cached_links()
    miss = ours.timed([follow_event(code) for code in miss_codes[:MISS_CALLS]], warmup=0)
    miss_after = ours.after_response
    services.forget_cached_links()
    miss_calls = ours.calls_per_request([follow_event(code) for code in miss_codes[MISS_CALLS:]])

    progress(f"floors x{FLOOR_CALLS}, naive x{NAIVE_CALLS}")
    context = LambdaContext("Floor", 512, 10, REGION)
    cycle = QuietCycle(stack)
    bare = cycle.timed(lambda: floors.bare(hit_event, context), FLOOR_CALLS)
    powertools = cycle.timed(lambda: floors.framework(hit_event, context), FLOOR_CALLS)
    with recording_aws_calls() as naive_calls:
        naive.handler(hit_event, None)
    naive_samples: list[int] = []
    for _ in range(NAIVE_CALLS // CHUNK):
        ours.fresh_clicks_queue()
        naive.QUEUE = os.environ["CLICKS_QUEUE_URL"]
        naive_samples += time_calls(lambda _: naive.handler(hit_event, None), CHUNK, warmup=20)
    return {
        "ours_hit": {**percentiles(hit), **hit_calls, "extension_after_response_p50_us": median_us(hit_after)},
        "ours_miss": {**percentiles(miss), **miss_calls, "extension_after_response_p50_us": median_us(miss_after)},
        "floor_bare": {**percentiles(bare), "aws_calls_before_response": 0},
        "floor_powertools_logger_metrics": {**percentiles(powertools), "aws_calls_before_response": 0},
        "floor_own_stack": {**percentiles(own_stack), "aws_calls_before_response": 0},
        "naive": {**percentiles(naive_samples), "aws_calls_before_response": len(naive_calls.calls)},
    }


SUSTAINED_RATE = 100  # redirects per second in one environment: busy, far from the most it takes
SUSTAINED_SECONDS = 10
IDLE_REDIRECTS = 5
SQS_BILLING_CHUNK = 64 * 1024  # SQS bills a request per 64 KB of payload
SEND = ("sqs", "SendMessage")


def measure_packing(stack: Stack, hit_code: str) -> dict[str, Any]:
    """What Lambda bills and SQS counts per redirect when clicks are packed: hits paced at a
    steady rate, then hits each after a quiet window (an idle environment, which sends every
    click at once). Lambda bills each invocation until its extension asks for the next event,
    in whole milliseconds: the handler, then describing and maybe sending clicks."""
    from math import ceil

    config = settings()
    window = config.click_pack_window_ms / 1000
    ours = UnderLambda.redirect(stack)
    event = follow_event(hit_code)

    def ingest_one_by_one(queue: str, messages: list[dict[str, Any]]) -> dict[str, float]:
        """Each message as a batch of its own, as ingest gets them at idle traffic."""
        from tools.devstack.sqs_trigger import sqs_event

        arn = stack.sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        durations = []
        with recording_aws_calls() as calls:
            for message in messages:
                started = time.perf_counter()
                stack.runner.call("IngestFunction", sqs_event([message], arn, REGION))
                durations.append(time.perf_counter() - started)
        writes = sum(1 for service, _ in calls.calls if service == "dynamodb")
        return {
            "ingest_ms_per_batch": round(statistics.median(durations) * 1000, 2),
            "ingest_dynamodb_writes_per_batch": round(writes / len(messages), 2),
        }

    def paced(count: int, interval: float, ingest_each: bool = False) -> dict[str, Any]:
        ours.fresh_clicks_queue()
        services.forget_cached_links()
        ours.timed([event], warmup=0)  # cached again, its click sent: the run starts idle
        time.sleep(window)
        queue = os.environ["CLICKS_QUEUE_URL"]
        stack.sqs.purge_queue(QueueUrl=queue)
        billed_ms: list[int] = []
        after_response: list[int] = []
        sent_by: list[int] = []  # messages each invocation sent
        clock = time.perf_counter_ns
        with recording_aws_calls() as calls:
            started = time.monotonic()
            for index in range(count):
                time.sleep(max(0.0, started + index * interval - time.monotonic()))
                ours.extension.wait_until_idle(10)
                before = calls.counts()[SEND]
                ours.extension.begin_invocation()
                began = clock()
                ours.handler(json.loads(json.dumps(event)), ours.context)
                handler_ns = clock() - began
                ours.extension.release()
                released = clock()
                ours.extension.wait_until_idle(10)
                after_response.append(clock() - released)
                billed_ms.append(ceil((handler_ns + after_response[-1]) / 1e6))
                sent_by.append(calls.counts()[SEND] - before)
            time.sleep(window + 0.5)  # the last held clicks go (in Lambda: with a later invocation)
            sends = calls.counts()[SEND]
        queued: list[dict[str, Any]] = []
        while messages := stack.sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", []):
            queued += messages
            entries: Any = [{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)]
            stack.sqs.delete_message_batch(QueueUrl=queue, Entries=entries)
        bodies = [message["Body"] for message in queued]
        clicks = sum(len(json.loads(body)["clicks"]) for body in bodies)
        # A send made between invocations is billed, in Lambda, to the invocation that makes it
        sending = [ms for ms, sent in zip(billed_ms, sent_by, strict=True) if sent]
        extra_ms = (sends - sum(sent_by)) * (statistics.median(sending) if sending else 0)
        return {
            "redirects": count,
            "rate_per_second": round(1 / interval, 2),
            "messages": len(bodies),
            "clicks": clicks,
            "clicks_per_message": round(clicks / max(len(bodies), 1), 1),
            "bytes_per_message": round(sum(len(body.encode()) for body in bodies) / max(len(bodies), 1)),
            "sqs_send_requests_per_redirect": round(
                sum(ceil(len(body.encode()) / SQS_BILLING_CHUNK) for body in bodies) / count, 5
            ),
            "sqs_messages_per_redirect": round(len(bodies) / count, 5),
            "sqs_bytes_per_redirect": round(sum(len(body.encode()) for body in bodies) / count, 1),
            "billed_ms_mean": round((sum(billed_ms) + extra_ms) / count, 3),
            "extension_after_response_p50_us": median_us(after_response),
            "extension_after_response_mean_us": round(statistics.mean(after_response) / 1000, 2),
            **(ingest_one_by_one(queue, queued) if ingest_each else {}),
        }

    progress(f"packing: {SUSTAINED_RATE * SUSTAINED_SECONDS} hits at {SUSTAINED_RATE}/s, {IDLE_REDIRECTS} idle ones")
    return {
        "window_ms": config.click_pack_window_ms,
        "max_clicks": config.click_pack_max_clicks,
        "sustained": paced(SUSTAINED_RATE * SUSTAINED_SECONDS, 1 / SUSTAINED_RATE),
        "idle": paced(IDLE_REDIRECTS, window + 0.2, ingest_each=True),
    }


def lambda_packages() -> Path:
    """The layer as `sam build` packages it (layers/common/package_layer.py), for this machine:
    pinned dependencies, botocore trimmed, bytecode precompiled. Dependencies are reinstalled
    only when the requirements or the packaging change; shortlink is copied afresh each run."""
    from package_layer import package

    requirements = ROOT / "layers" / "common" / "requirements.txt"
    recipe = requirements.read_text() + (ROOT / "layers" / "common" / "package_layer.py").read_text()
    target = ROOT / "bench-results" / "lambda-packages"
    stamp = target / ".recipe"
    fresh = not stamp.is_file() or stamp.read_text() != recipe
    if fresh:
        progress("packaging the layer for the cold-start runs")
        shutil.rmtree(target, ignore_errors=True)
    package(target, platform=None, dependencies=fresh)
    stamp.write_text(recipe)
    return target


def stock_packages() -> Path:
    """The same pinned packages as pip installs them, untrimmed: what a naive function gets from
    the runtime's boto3."""
    requirements = ROOT / "layers" / "common" / "requirements.txt"
    target = ROOT / "bench-results" / "stock-packages"
    stamp = target / ".requirements"
    if not stamp.is_file() or stamp.read_text() != requirements.read_text():
        progress("installing the stock packages for the naive cold starts")
        shutil.rmtree(target, ignore_errors=True)
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), "-r", str(requirements)]
        subprocess.run(command, check=True, timeout=600)
        stamp.write_text(requirements.read_text())
    return target


def measure_cold_starts(code: str) -> dict[str, Any]:
    """A fresh process each time, to the first 302; the variants take turns.

    - ours: our layer as packaged for Lambda;
    - naive: the naive handler on stock packages (boto3 as the runtime ships it);
    - naive_on_our_layer: the naive handler on our packaging, to show what the packaging alone
      is worth."""
    ours_path = os.pathsep.join([str(lambda_packages()), str(ROOT)])
    stock_path = os.pathsep.join([str(stock_packages()), str(ROOT)])
    variants = {"ours": ("ours", ours_path), "naive": ("naive", stock_path), "naive_on_our_layer": ("naive", ours_path)}
    progress(f"cold starts x{COLD_STARTS} each")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    for _ in range(COLD_STARTS):
        for name, (handler, path) in variants.items():
            began = time.perf_counter()
            child = subprocess.run(
                [sys.executable, "-S", "-m", "tools.bench.cold_start", handler, code],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": path},
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            measured = json.loads(child.stdout.strip().splitlines()[-1])
            runs[name].append({**measured, "process_wall_ms": (time.perf_counter() - began) * 1000})

    def median(which: str, field: str) -> float:
        return round(statistics.median(run[field] for run in runs[which]), 1)

    fields = ("init_ms", "first_invoke_ms", "total_ms", "process_wall_ms")
    result: dict[str, Any] = {which: {field: median(which, field) for field in fields} for which in runs}
    result["runs"] = COLD_STARTS
    result["ratio_ours_to_naive"] = round(median("ours", "total_ms") / median("naive", "total_ms"), 3)
    result["ratio_ours_to_naive_on_our_layer"] = round(
        median("ours", "total_ms") / median("naive_on_our_layer", "total_ms"), 3
    )
    return result


CLICK_TIME = "2026-01-01T00:00:00+00:00"


def measure_ingest(stack: Stack, codes: list[str]) -> dict[str, Any]:
    """DynamoDB writes per 1,000 clicks, through the real queue in the template's batch size."""
    from tools.devstack.sqs_trigger import SqsPoller

    progress(f"ingest of {CLICKS} clicks over {CLICK_LINKS} links")
    queue = stack.queue_urls["ClicksQueue"]
    for start in range(0, CLICKS, 10):
        bodies = [
            json.dumps({"click_id": f"bench-{start + n}", "code": codes[(start + n) % CLICK_LINKS], "at": CLICK_TIME})
            for n in range(10)
        ]
        entries: Any = [{"Id": str(n), "MessageBody": body} for n, body in enumerate(bodies)]
        stack.sqs.send_message_batch(QueueUrl=queue, Entries=entries)
    trigger = stack.template.sqs_trigger("IngestFunction")
    poller = SqsPoller(trigger, queue, stack.sqs, stack.runner, REGION)
    delivered = batches = 0
    handler_seconds = 0.0
    with recording_aws_calls() as calls, metered() as meter:
        while delivered < CLICKS and (got := poller.poll_once()):
            delivered += got
            batches += 1
            handler_seconds += poller.last_invocation_seconds
    writes = sum(1 for service, operation in calls.calls if service == "dynamodb" and operation in WRITES)
    return {
        "clicks": delivered,
        "links": CLICK_LINKS,
        "batch_size": trigger.batch_size,
        "batches": batches,
        "ms_per_batch": round(handler_seconds * 1000 / max(batches, 1), 2),
        "dynamodb_writes_per_1000_clicks": round(writes * 1000 / max(delivered, 1), 1),
        "write_units_per_1000_clicks": round(meter.units * 1000 / max(delivered, 1), 1),
    }


def measure_clicks(stack: Stack, code: str) -> dict[str, Any]:
    return measure_click_costs(
        lambda event: stack.runner.call("IngestFunction", event),
        lambda event: stack.runner.call("ManageFunction", event),
        code,
        os.environ["BENCH_API_KEY"],
        progress,
    )


def click_targets(clicks: dict[str, Any]) -> dict[str, bool]:
    month, year = clicks["stats_30_days"], clicks["stats_400_days"]
    return {
        "hot_link_le_20_write_units_per_1000_clicks": clicks["hot_link"]["write_units_per_1000_clicks"] <= 20,
        # "at most about one unit per link and batch"
        "cool_links_le_1_1_write_units_per_link_and_batch": clicks["cool_links"]["write_units_per_link_and_batch"]
        <= 1.1,
        "stats_30_days_le_3_pages": month["query_pages"] <= 3,
        "stats_30_days_le_300_kb": month["bytes_read"] <= 300 * 1024,
        "stats_30_days_p50_le_250_ms": month["p50_ms"] <= 250,
        "stats_400_days_le_1_mb": year["bytes_read"] <= 1024 * 1024,
    }


def main() -> None:
    # EMF metrics and logs go to stdout as in Lambda; here to /dev/null for the whole run
    # (Powertools' Logger keeps the stream it saw at import), and the report to the real stdout.
    report_stream = sys.stdout
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - open until the process ends
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    progress("starting the embedded endpoint and the template's resources")
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    endpoint = start_endpoint()
    try:
        stack = start_stack()
        machine = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
        if sys.argv[1:] == ["clicks"]:  # the click part alone: `python -m tools.bench clicks`
            report: dict[str, Any] = {
                "machine": machine,
                "clicks": measure_clicks(stack, create_links(stack, 1, "k")[0][0]),
            }
            report["targets"] = click_targets(report["clicks"])
            stack.runner.stop()
            write_report(report, report_stream, "clicks.json")
            return
        progress(f"creating {CREATES} + {MISS_CALLS + CALL_COUNT_SAMPLE} links")
        codes, create_calls, create_durations = create_links(stack, CREATES, "c")
        miss_codes, _, _ = create_links(stack, MISS_CALLS + CALL_COUNT_SAMPLE, "m")
        report = {
            "machine": machine,
            "create": {
                "links": CREATES,
                "p50_ms": round(statistics.median(create_durations) / 1e6, 2),
                "aws_calls_per_link": round(len(create_calls.calls) / CREATES, 3),
                "calls": {f"{service}.{operation}": n for (service, operation), n in create_calls.counts().items()},
            },
            "redirect": measure_redirects(stack, codes[0], miss_codes),
            "packing": measure_packing(stack, codes[0]),
            "cold_start": measure_cold_starts(codes[0]),
            "ingest": measure_ingest(stack, codes),
        }
        report["clicks"] = measure_clicks(stack, codes[1])
        redirect = report["redirect"]
        hit_p50 = redirect["ours_hit"]["p50_us"]
        report["targets"] = {
            "hit_p50_le_2x_powertools_floor": hit_p50 <= 2 * redirect["floor_powertools_logger_metrics"]["p50_us"],
            "hit_p50_le_2x_own_stack_floor": hit_p50 <= 2 * redirect["floor_own_stack"]["p50_us"],
            "hit_p50_le_250us": hit_p50 <= 250,
            "hit_p50_20x_faster_than_naive": redirect["naive"]["p50_us"] >= 20 * hit_p50,
            "cold_start_le_0_9x_naive": report["cold_start"]["ratio_ours_to_naive"] <= 0.9,
            **click_targets(report["clicks"]),
            "twenty_links_le_24_write_units_per_1000_clicks": report["ingest"]["write_units_per_1000_clicks"] <= 24,
        }
        stack.runner.stop()
    finally:
        endpoint.terminate()  # also when a measurement fails: no moto server left behind
    write_report(report, report_stream, "latest.json")


def write_report(report: dict[str, Any], stream: Any, name: str) -> None:
    output = json.dumps(report, indent=2)
    results = ROOT / "bench-results"
    results.mkdir(exist_ok=True)
    (results / name).write_text(output + "\n")
    print(output, file=stream)
    progress("done")


if __name__ == "__main__":
    main()
