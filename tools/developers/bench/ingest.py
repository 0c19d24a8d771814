"""Ingest through the real queue in the template's batch size: DynamoDB writes and write units
per 1,000 clicks over a few links."""

import json
import os
from typing import Any

from shortlink.access.api_keys import hash_api_key, key_id_for
from tests.aws_calls import recording_aws_calls
from tools.developers.bench.click_costs import metered
from tools.developers.bench.harness import REGION, Stack, progress
from tools.developers.bench.write_units import WRITES

CLICKS = 1_000
CLICK_LINKS = 20
CLICK_TIME = "2026-01-01T00:00:00+00:00"


def measure_ingest(stack: Stack, codes: list[str]) -> dict[str, Any]:
    """DynamoDB writes per 1,000 clicks, through the real queue in the template's batch size."""
    from tools.developers.devstack.sqs_trigger import SqsPoller

    progress(f"ingest of {CLICKS} clicks over {CLICK_LINKS} links")
    queue = stack.queue_urls["ClicksQueue"]
    owner = key_id_for(hash_api_key(os.environ["BENCH_API_KEY"]))  # the links' owner: one account day more
    for start in range(0, CLICKS, 10):
        bodies = [
            json.dumps(
                {
                    "click_id": f"bench-{start + n}",
                    "code": codes[(start + n) % CLICK_LINKS],
                    "at": CLICK_TIME,
                    "owner": owner,
                    "tags": [],
                }
            )
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
