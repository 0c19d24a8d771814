"""The click-stats table's stream → accounts' and tags' days (`GET /stats`).

Ingest counts each link's days and names their owner and tags on them; this function adds each
change of a link's day to its account's and tags' same day (adapters/dynamodb/account_changes.py),
one write per subject day and batch, each change exactly once (adapters/dynamodb/account_days.py):
link counting stays as cheap as it was, and an account costs a write per batch, not per pack.

The event source uses a tumbling window only for what its events then carry, the shard's id
(the applied-changes marker is per shard); the window's state is unused. A batch that cannot
be written fails whole, and Lambda retries it (bisecting is off: halves would be applied as
batches of their own, which is still exact, but costs writes); what it had applied is skipped.
"""

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.adapters.dynamodb.account_changes import account_changes
from shortlink.wiring import account_days

logger = Logger()
metrics = Metrics()


def apply_batch(event: dict[str, Any]) -> dict[str, Any]:
    if "shardId" not in event:  # applying without it could count a change twice
        raise ValueError("a stream event without its shardId: the event source needs TumblingWindowInSeconds")
    store = account_days()
    records = event.get("Records", [])
    changes = account_changes(records, store.region())
    written = store.apply(changes, event["shardId"])
    metrics.add_metric(name="AccountDaysWritten", unit=MetricUnit.Count, value=written)
    logger.info("stream batch applied", extra={"records": len(records), "account_days": written})
    return {"state": {}}


@metrics.log_metrics
@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return apply_batch(event)
