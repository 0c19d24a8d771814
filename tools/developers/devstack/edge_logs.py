"""A local stand-in for the Kinesis data stream CloudFront's real-time logs write to: the local
edge's `on_request` hook (tools.developers.devstack.edge) appends each request's record as CloudFront
writes it (the fields of shortlink.redirect.edge_log_clicks.LOG_FIELDS in their order,
tab-separated, one line per Kinesis record), and a poller hands batches to the ingest function as
Lambda's Kinesis event source does: in order, base64 data, a sequence number per record, the
batch offered again from the first record the function reports failed.

`redelivery` (EDGE_LOG_REDELIVERY, 0 to 1) is the chance that a batch counted is offered once
more, whole, as Kinesis does after a function error or timeout: exactly-once is tried on every run.
"""

import base64
import random
import threading
import time
from typing import Any

from tools.developers.devstack.polling import Poller
from tools.developers.devstack.sqs_trigger import FunctionCaller

POLL_SECONDS = 0.2
BATCH_SIZE = 100
INGEST_FUNCTION = "IngestFunction"
STREAM_ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/shortlink-edge-logs"


def log_line(fields: dict[str, str]) -> str:
    """A real-time log record's line from its fields by name ("-" for one the edge did not give)."""
    from shortlink.redirect.edge_log_clicks import LOG_FIELDS

    return "\t".join(fields.get(name) or "-" for name in LOG_FIELDS) + "\n"


class LocalLogStream(Poller):
    """One shard: records appended in order, read by the ingest function."""

    def __init__(self, caller: FunctionCaller, region: str, redelivery: float = 0.0) -> None:
        super().__init__("edge-logs", "the edge's real-time log stream", POLL_SECONDS)
        self._caller = caller
        self._region = region
        self._redelivery = redelivery
        self._records: list[dict[str, Any]] = []
        self._position = 0  # the index of the first record not yet counted
        self._offered_again = False  # the batch at the position has been offered twice already
        self._lock = threading.Lock()

    def on_request(self, fields: dict[str, str]) -> None:
        """The local edge's hook: one request's record onto the stream."""
        data = base64.b64encode(log_line(fields).encode()).decode()
        with self._lock:
            sequence = f"{len(self._records) + 1:056d}"
            self._records.append(
                {
                    "kinesis": {
                        "kinesisSchemaVersion": "1.0",
                        "partitionKey": fields.get("x-edge-request-id", "-"),
                        "sequenceNumber": sequence,
                        "data": data,
                        "approximateArrivalTimestamp": time.time(),
                    },
                    "eventSource": "aws:kinesis",
                    "eventVersion": "1.0",
                    "eventID": f"shardId-000000000000:{sequence}",
                    "eventName": "aws:kinesis:record",
                    "awsRegion": self._region,
                    "eventSourceARN": STREAM_ARN,
                }
            )

    def poll_once(self) -> int:
        with self._lock:
            batch = self._records[self._position : self._position + BATCH_SIZE]
        if not batch:
            return 0
        answer = self._caller.call(INGEST_FUNCTION, {"Records": batch}) or {}
        failed = [item["itemIdentifier"] for item in answer.get("batchItemFailures", [])]
        if failed:  # offered again from the first failed record, as Lambda does for Kinesis
            sequences = [record["kinesis"]["sequenceNumber"] for record in batch]
            self._position += min(sequences.index(sequence) for sequence in failed)
        elif self._offered_again or random.random() >= self._redelivery:  # noqa: S311 - a test's chance
            self._position += len(batch)
            self._offered_again = False
        else:  # once more, whole, as after a timeout the function did not see
            self._offered_again = True
        return len(batch)

    @property
    def pending(self) -> int:
        """Records not yet counted."""
        with self._lock:
            return len(self._records) - self._position
