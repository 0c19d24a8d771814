"""The links table → the edge's KeyValueStore (shortlink.edge.sync).

Two events: the links table's stream (each batch's changes, leaving keys first; a batch that
cannot be written fails whole and the stream offers it again, in order), and the schedule's
reconciliation, which brings the store to what the whole table says and reports how much it
repaired (EdgeEntriesRepaired: above zero, something drifted).
"""

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.edge.sync import push_link_changes, reconcile
from shortlink.wiring import edge_store, link_scan, link_stream_changes, recent_link_clicks, short_domains

logger = Logger()
metrics = Metrics()


def sync_changes(records: list[dict[str, Any]]) -> None:
    store = edge_store()
    updates = push_link_changes(store, link_stream_changes(records), short_domains(), datetime.now(UTC))
    metrics.add_metric(name="EdgeStoreUpdates", unit=MetricUnit.Count, value=len(updates))
    metrics.add_metric(name="EdgeStoreConflicts", unit=MetricUnit.Count, value=store.conflicts)
    logger.info("links synced", extra={"records": len(records), "updates": len(updates)})


def reconcile_store() -> None:
    now = datetime.now(UTC)
    repairs = reconcile(edge_store(), link_scan().links(), short_domains(), recent_link_clicks(now.date()), now)
    metrics.add_metric(name="EdgeEntriesRepaired", unit=MetricUnit.Count, value=repairs.total)
    logger.info(
        "edge store reconciled",
        extra={"missing": repairs.missing, "stale": repairs.stale, "extra": repairs.extra},
    )


@metrics.log_metrics
@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> None:
    if "Records" in event:
        sync_changes(event["Records"])
    else:  # the schedule's event
        reconcile_store()
