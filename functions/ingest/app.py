"""SQS → click totals. Each batch costs one counter update per link, not one per click."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.clicks import ClickEvent, clicks_per_link
from shortlink.errors import StorageUnavailable
from shortlink.services import click_counter_store

logger = Logger(service="shortlink-ingest")
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    parsed: list[tuple[ClickEvent, str]] = []

    def parse(record: SQSRecord) -> None:
        parsed.append((ClickEvent.from_json(record.body), record.message_id))

    with processor(records=event["Records"], handler=parse):
        processor.process()
    failures = [{"itemIdentifier": item["itemIdentifier"]} for item in processor.response()["batchItemFailures"]]

    store = click_counter_store()
    for code, count in clicks_per_link(click for click, _ in parsed).items():
        try:
            store.add_clicks(code, count)
        except StorageUnavailable:
            # Only this link's messages come back; the others are already counted.
            logger.exception("click totals not updated", extra={"code": code, "clicks": count})
            failures.extend({"itemIdentifier": message_id} for click, message_id in parsed if click.code == code)
    logger.info("batch counted", extra={"records": len(event["Records"]), "failed": len(failures)})
    return {"batchItemFailures": failures}
