"""SQS → click counters, each pack of clicks exactly once.

Powertools' BatchProcessor reads the batch (a malformed message fails alone, and after five
tries rests in the dead-letter queue). Each pack's clicks are then grouped per link and UTC day
(shortlink.clicks.tally), and each group is counted with one write (a cool day) or one
transaction (a hot one) per 64 packs, counters and ledger together (see
adapters/dynamodb/click_counter.py): writes per batch follow the link-days, never the clicks. A
group that cannot be written reports its messages as failed; SQS offers them again, and the
ledger skips every pack that was in fact counted.

The redirect's metrics ride on its clicks (shortlink.clicks): the counts of the groups written
here are emitted as one record per batch, as the redirect's (under REDIRECT_SERVICE_NAME).
"""

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.clicks.events import ClickPack
from shortlink.clicks.tally import parts_per_link_day
from shortlink.errors import StorageUnavailable
from shortlink.redirect import metrics as deferred_metrics
from shortlink.webhooks import emitting as webhook_events
from shortlink.webhooks.model import click_events
from shortlink.wiring import click_counter, redirect_metric_settings, webhook_queue

logger = Logger()
tracer = Tracer()
metrics = Metrics()
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def count_batch(records: list[dict[str, Any]]) -> dict[str, Any]:
    packs: list[ClickPack] = []
    message_ids: dict[str, list[str]] = {}

    def parse(record: SQSRecord) -> None:
        pack = ClickPack.from_message(record.body, message_id=record.message_id)
        packs.append(pack)
        message_ids.setdefault(pack.pack_id, []).append(record.message_id)

    with processor(records=records, handler=parse):
        processor.process()
    failures = [{"itemIdentifier": item["itemIdentifier"]} for item in processor.response()["batchItemFailures"]]

    counted = skipped = hot = 0
    oldest: datetime | None = None
    redirect_counts: Counter[str] = Counter()
    new_per_code: Counter[str] = Counter()  # newly counted only: a redelivered pack adds nothing
    store = click_counter()
    for (code, day), parts in sorted(parts_per_link_day(packs).items()):
        try:
            new = store.count(code, day, list(parts.values()))
        except StorageUnavailable:
            # Only this group's packs come back; the others are counted, and the ledger keeps them so.
            # Without the code: a private link's code is its capability, and logs must not hold it.
            logger.exception("clicks not counted", extra={"day": day, "packs": len(parts)})
            failures.extend({"itemIdentifier": mid} for pack_id in parts for mid in message_ids[pack_id])
            continue
        clicks = [click for part in parts.values() for click in part.clicks]
        counted += new
        new_per_code[code] += new
        skipped += len(clicks) - new
        hot += store.is_hot(code, day)
        if clicks:  # a part may hold orphan visits alone
            first = min(click.at for click in clicks)
            oldest = first if oldest is None or first < oldest else oldest
        for click in clicks:
            redirect_counts.update(click.counts)
    failures = [{"itemIdentifier": mid} for mid in dict.fromkeys(item["itemIdentifier"] for item in failures)]
    # link.clicked: one message per batch
    webhook_events.emit(webhook_queue(), click_events(new_per_code, datetime.now(UTC)))
    deferred_metrics.emit(redirect_counts, redirect_metric_settings)
    metrics.add_metric(name="ClicksIngested", unit=MetricUnit.Count, value=counted)
    metrics.add_metric(name="DuplicatesSkipped", unit=MetricUnit.Count, value=skipped)
    metrics.add_metric(name="HotLinkDays", unit=MetricUnit.Count, value=hot)
    if oldest is not None:  # how far counting runs behind the redirects (queue wait included)
        lag = (datetime.now(UTC) - oldest).total_seconds()
        metrics.add_metric(name="ClickLagSeconds", unit=MetricUnit.Seconds, value=max(lag, 0.0))
    logger.info("batch counted", extra={"records": len(records), "counted": counted, "duplicates": skipped})
    return {"batchItemFailures": failures}


@metrics.log_metrics
@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return count_batch(event["Records"])
