"""SQS → click counters, each pack of clicks exactly once.

Powertools' BatchProcessor reads the batch (a malformed message fails alone, and after five
tries rests in the dead-letter queue); shortlink.clicks.counting counts it per link and UTC day,
writes following the link-days, never the clicks. A group that cannot be written reports its
messages as failed; SQS offers them again, and the ledger skips every pack that was in fact counted.

The clicks the edge answered come as CloudFront real-time log lines through Kinesis
(shortlink.redirect.edge_log_clicks): one pack per follow, its id the edge's request id, counted
by the same ledger and under `answered` = edge (the queue's under this function's region).
The redirect's metrics ride on its clicks: emitted here as the redirect's (REDIRECT_SERVICE_NAME).
"""

import base64
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit, single_metric
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.clicks import counting
from shortlink.clicks import metrics as deferred_metrics
from shortlink.clicks.events import EDGE, ClickPack
from shortlink.redirect.edge_log_clicks import edge_packs, lines_by_minute
from shortlink.webhooks import emitting as webhook_events
from shortlink.webhooks.events import click_events
from shortlink.wiring import (
    cached_links,
    click_counter,
    click_lake,
    click_reading,
    redirect_metric_settings,
    regions,
    short_domains,
    visitor_salt_root,
    webhook_queue,
)

logger = Logger()
tracer = Tracer()
metrics = Metrics()
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def count_batch(records: list[dict[str, Any]]) -> dict[str, Any]:
    """An SQS batch of packs (the redirect's clicks)."""
    packs: list[ClickPack] = []
    message_ids: dict[str, list[str]] = {}

    region = regions().region

    def parse(record: SQSRecord) -> None:
        pack = ClickPack.from_message(record.body, message_id=record.message_id).answered_in(region)
        packs.append(pack)
        message_ids.setdefault(pack.pack_id, []).append(record.message_id)

    with processor(records=records, handler=parse):
        processor.process()
    failures = [item["itemIdentifier"] for item in processor.response()["batchItemFailures"]]
    failures.extend(mid for pack_id in count_packs(packs) for mid in message_ids[pack_id])
    logger.info("batch counted", extra={"records": len(records)})
    return {"batchItemFailures": [{"itemIdentifier": mid} for mid in dict.fromkeys(failures)]}


def count_edge_batch(records: list[dict[str, Any]]) -> dict[str, Any]:
    """A Kinesis batch of CloudFront real-time log lines (the clicks the edge answered), each
    counted once by its request id; a record whose clicks could not be counted is offered again
    from its sequence number (Lambda's partial batch response for Kinesis)."""
    lines = [
        (record["kinesis"]["sequenceNumber"], line)
        for record in records
        for line in base64.b64decode(record["kinesis"]["data"]).decode("utf-8", "replace").splitlines()
    ]
    links = cached_links()
    packs = edge_packs(lines, short_domains(), lambda key: links.lookup(key).link, visitor_salt_root(), click_reading())
    record_of = {pack.pack_id: record for record, pack in packs}
    failed = count_packs([pack.answered_in(EDGE) for _, pack in packs])
    offered_again = [record_of[pack_id] for pack_id in dict.fromkeys(failed)]
    # The lines read for good, timed by their requests' minute: the edge's counts check compares
    # them with CloudFront's count of the same hour (shortlink.edge.count_check).
    for minute, count in lines_by_minute(lines, offered_again, datetime.now(UTC)).items():
        with single_metric(name="EdgeLogLines", unit=MetricUnit.Count, value=count) as metric:
            metric.set_timestamp(minute)
    logger.info("edge batch counted", extra={"records": len(records), "lines": len(lines), "clicks": len(packs)})
    return {"batchItemFailures": [{"itemIdentifier": record} for record in offered_again]}


def count_packs(packs: list[ClickPack]) -> list[str]:
    """Count the packs' clicks (shortlink.clicks.counting) and emit their metrics and webhook
    events; the ids of the packs that could not be counted (to be offered again)."""
    batch = counting.count_packs(packs, click_counter(), click_lake(), regions().region)
    # link.clicked: one message per batch
    webhook_events.emit(webhook_queue(), click_events(batch.new_per_code, datetime.now(UTC)))
    deferred_metrics.emit(batch.redirect_counts, redirect_metric_settings)
    metrics.add_metric(name="ClicksIngested", unit=MetricUnit.Count, value=batch.counted)
    metrics.add_metric(name="DuplicatesSkipped", unit=MetricUnit.Count, value=batch.skipped)
    metrics.add_metric(name="HotLinkDays", unit=MetricUnit.Count, value=batch.hot_link_days)
    if batch.oldest_click is not None:  # how far counting runs behind the redirects (queue wait included)
        lag = (datetime.now(UTC) - batch.oldest_click).total_seconds()
        metrics.add_metric(name="ClickLagSeconds", unit=MetricUnit.Seconds, value=max(lag, 0.0))
    logger.info("clicks counted", extra={"counted": batch.counted, "duplicates": batch.skipped})
    return batch.failed


@metrics.log_metrics
@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    records = event["Records"]
    if records and records[0].get("eventSource") == "aws:kinesis":
        return count_edge_batch(records)
    return count_batch(records)
