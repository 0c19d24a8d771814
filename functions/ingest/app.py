"""SQS → click counters, each click exactly once.

Powertools' BatchProcessor reads the batch (a malformed message fails alone, and after five
tries rests in the dead-letter queue). The clicks are then grouped per link and hour, and each
group is counted with one conditional UpdateItem per shard it touches, counters and ledger of
click ids together (see adapters/dynamodb_click_stats.py): writes per batch follow the groups,
never the clicks. A group that cannot be written reports its messages as failed; SQS offers
them again, and the ledger skips any that were in fact counted.

The redirect's metrics ride on its clicks (shortlink.clicks): the counts of the groups written
here are emitted as one record per batch, as the redirect's (service=redirect).
"""

from collections import Counter
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink import deferred_metrics
from shortlink.clicks import ClickEvent, ClickPack, clicks_per_link_hour
from shortlink.errors import StorageUnavailable
from shortlink.services import click_stats

logger = Logger(service="shortlink-ingest")
tracer = Tracer(service="shortlink-ingest")
metrics = Metrics(service="ingest")
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def count_batch(records: list[dict[str, Any]]) -> dict[str, Any]:
    parsed: list[tuple[ClickEvent, str]] = []

    def parse(record: SQSRecord) -> None:
        pack = ClickPack.from_message(record.body, message_id=record.message_id)
        parsed.extend((click, record.message_id) for click in pack.clicks)

    with processor(records=records, handler=parse):
        processor.process()
    failures = [{"itemIdentifier": item["itemIdentifier"]} for item in processor.response()["batchItemFailures"]]

    message_ids: dict[str, list[str]] = {}
    for click, message_id in parsed:
        message_ids.setdefault(click.click_id, []).append(message_id)
    counted = skipped = 0
    redirect_counts: Counter[str] = Counter()
    store = click_stats()
    for (code, hour), clicks in clicks_per_link_hour(click for click, _ in parsed).items():
        try:
            new = store.add(code, hour, clicks)
        except StorageUnavailable:
            # Only this group comes back; the others are counted, and the ledger keeps them so.
            # Without the code: a private link's code is its capability, and logs must not hold it.
            logger.exception("clicks not counted", extra={"hour": hour, "clicks": len(clicks)})
            failures.extend({"itemIdentifier": mid} for click in clicks for mid in message_ids[click.click_id])
            continue
        counted += new
        skipped += len(clicks) - new
        for click in clicks:
            redirect_counts.update(click.counts)
    deferred_metrics.emit(redirect_counts)
    metrics.add_metric(name="ClicksIngested", unit=MetricUnit.Count, value=counted)
    metrics.add_metric(name="DuplicatesSkipped", unit=MetricUnit.Count, value=skipped)
    logger.info("batch counted", extra={"records": len(records), "counted": counted, "duplicates": skipped})
    return {"batchItemFailures": failures}


@metrics.log_metrics
@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return count_batch(event["Records"])
