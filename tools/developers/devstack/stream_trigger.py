"""The template's DynamoDB stream event sources, as Lambda's poller runs them: per shard, read
records in order (TRIM_HORIZON), invoke the function with a real stream event (with the shard's
id, as a tumbling-window event carries it), move on only when it succeeds; a failed batch is
offered again whole (no bisecting), as the template asks.

Stores without streams (dynalite) have no stream ARN on the table: the stack then runs without
the trigger, and says so.
"""

import base64
import logging
from datetime import datetime
from typing import Any

from tools.developers.devstack.polling import Poller
from tools.developers.devstack.sqs_trigger import FunctionCaller
from tools.developers.devstack.template import StreamTrigger

logger = logging.getLogger("devstack")

STREAM_POLL_SECONDS = 0.5  # the rest between polls of a stream with nothing new


def lambda_value(value: Any) -> Any:
    """A boto3-decoded attribute value as Lambda hands it to a function (JSON: binary as base64)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, dict):
        return {key: lambda_value(item) for key, item in value.items()}
    if isinstance(value, list | set | tuple):
        return [lambda_value(item) for item in value]
    return value


def stream_event(records: list[dict[str, Any]], shard_id: str, stream_arn: str, region: str) -> dict[str, Any]:
    return {
        "Records": [{**lambda_value(record), "eventSourceARN": stream_arn, "awsRegion": region} for record in records],
        "shardId": shard_id,
        "eventSourceARN": stream_arn,
        "state": {},
    }


class StreamPoller(Poller):
    def __init__(
        self, trigger: StreamTrigger, stream_arn: str, streams: Any, runner: FunctionCaller, region: str
    ) -> None:
        super().__init__(f"stream-{trigger.function_name}", f"the stream of {trigger.table_id}", STREAM_POLL_SECONDS)
        self._trigger = trigger
        self._arn = stream_arn
        self._streams = streams
        self._runner = runner
        self._region = region
        self._positions: dict[str, str] = {}  # shard id -> sequence number of the last record delivered

    def _iterator(self, shard_id: str) -> str:
        position = self._positions.get(shard_id)
        start: dict[str, str] = (
            {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": position}
            if position
            else {"ShardIteratorType": "TRIM_HORIZON"}
        )
        answer = self._streams.get_shard_iterator(StreamArn=self._arn, ShardId=shard_id, **start)
        return str(answer["ShardIterator"])

    def poll_once(self) -> int:
        """Offer one batch of each shard that has records; the number of records offered (a
        failed batch's come again)."""
        offered = 0
        for shard in self._streams.describe_stream(StreamArn=self._arn)["StreamDescription"]["Shards"]:
            shard_id = shard["ShardId"]
            records = self._streams.get_records(ShardIterator=self._iterator(shard_id), Limit=self._trigger.batch_size)[
                "Records"
            ]
            if not records:
                continue
            event = stream_event(records, shard_id, self._arn, self._region)
            offered += len(records)
            try:
                self._runner.call(self._trigger.function_name, event)
            except Exception:
                logger.exception("%s failed; %d records will be retried", self._trigger.function_name, len(records))
                continue
            self._positions[shard_id] = records[-1]["dynamodb"]["SequenceNumber"]
            logger.info("%s <- %s: %d records", self._trigger.function_name, self._trigger.table_id, len(records))
        return offered
