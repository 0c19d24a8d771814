"""What Lambda bills and SQS counts per redirect when the click extension packs clicks: under
sustained traffic and at idle traffic."""

import json
import os
import statistics
import time
from typing import Any

from shortlink import wiring as services
from shortlink.settings.clicks import ClickSettings
from tests.aws_calls import recording_aws_calls
from tools.developers.bench.harness import REGION, Stack, UnderLambda, follow_event, median_us, progress

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

    config = services.settings_of(ClickSettings)
    window = config.pack_window_ms / 1000
    ours = UnderLambda.redirect(stack)
    event = follow_event(hit_code)

    def ingest_one_by_one(queue: str, messages: list[dict[str, Any]]) -> dict[str, float]:
        """Each message as a batch of its own, as ingest gets them at idle traffic."""
        from tools.developers.devstack.sqs_trigger import sqs_event

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
        "window_ms": config.pack_window_ms,
        "max_clicks": config.pack_max_clicks,
        "sustained": paced(SUSTAINED_RATE * SUSTAINED_SECONDS, 1 / SUSTAINED_RATE),
        "idle": paced(IDLE_REDIRECTS, window + 0.2, ingest_each=True),
    }
