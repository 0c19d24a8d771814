"""An at-least-once queue and a faulty store in front of the ingest function, for the
fault-injection tests: random redelivery (also of deleted messages), rough order, crashes before
and after each write (so also between a batch's writes), and throttling."""

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

ARN = "arn:aws:sqs:us-east-1:123456789012:ClicksQueue"
STORE_WRITES = ("UpdateItem", "TransactWriteItems", "PutItem")


def record(message_id: str, body: str) -> dict[str, Any]:
    return {
        "messageId": message_id,
        "receiptHandle": f"rh-{message_id}",
        "body": body,
        "attributes": {},
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": ARN,
        "awsRegion": "us-east-1",
    }


class Crash(Exception):
    """The function dies: Lambda reports an error and SQS offers the whole batch again."""


def inject_store_faults(
    client: Any, rng: random.Random, faults: Counter[str], crash: float = 0.002, throttle: float = 0.02
) -> None:
    """Every write of `client` may crash before or after it, or be throttled."""

    def before_write(event_name: str, **_: Any) -> None:
        roll = rng.random()
        if roll < crash:
            faults["crash before write"] += 1
            raise Crash("before write")
        if roll < crash + throttle:
            faults["throttled"] += 1
            error = {"Error": {"Code": "ProvisionedThroughputExceededException"}}
            raise ClientError(error, event_name.rsplit(".", 1)[-1])  # type: ignore[arg-type]

    def after_write(**_: Any) -> None:
        if rng.random() < crash:
            faults["crash after write"] += 1
            raise Crash("after write")

    for operation in STORE_WRITES:
        client.meta.events.register(f"before-call.dynamodb.{operation}", before_write)
        client.meta.events.register(f"after-call.dynamodb.{operation}", after_write)


def drain(
    queue: list[dict[str, Any]],
    ingest: Callable[[dict[str, Any]], dict[str, Any]],
    rng: random.Random,
    batch_size: Callable[[], int],
    faults: Counter[str],
    max_invocations: int = 5_000,
) -> Counter[str]:
    """Deliver `queue` until it is empty; how often each message was received."""
    deleted: list[dict[str, Any]] = []
    receives: Counter[str] = Counter()
    invocations = 0
    while queue and invocations < max_invocations:
        invocations += 1
        for _ in range(rng.randrange(5)):  # a standard queue keeps only rough order
            queue.insert(0, queue.pop(rng.randrange(len(queue))))
        size = batch_size()
        batch, queue[:] = queue[:size], queue[size:]
        receives.update(message["messageId"] for message in batch)
        if deleted and rng.random() < 0.2:  # at-least-once: an already deleted message comes back
            duplicates = rng.sample(deleted, min(len(deleted), rng.randrange(1, 10)))
            batch = batch + duplicates
            faults["redelivered after delete"] += len(duplicates)
        try:
            result = ingest({"Records": batch})
        except Crash:
            queue.extend(batch)  # nothing was deleted: all of it comes back
            continue
        failed = {item["itemIdentifier"] for item in result["batchItemFailures"]}
        queue.extend(message for message in batch if message["messageId"] in failed)
        deleted.extend(message for message in batch if message["messageId"] not in failed)
        faults["partial failures"] += len(failed)
    assert not queue, f"still queued after {invocations} invocations"
    return receives
