"""Firehose adapter of the click lake: a batch's records in PutRecordBatch calls (at most 500
records and 4 MiB each), the records Firehose refused offered again a few times, then
StorageUnavailable. Firehose may still store a record twice: rows carry click ids, and the lake's
queries count each once (docs/click-lake.md)."""

import time
from collections.abc import Iterator, Sequence
from typing import Any

from shortlink.errors import StorageUnavailable

MAX_BATCH_RECORDS = 500
MAX_BATCH_BYTES = 4 * 1024 * 1024
# Refused records (throttling, a service error) are offered again after a short, growing pause.
ATTEMPTS = 4
FIRST_PAUSE_SECONDS = 0.1


def batches(records: Sequence[bytes]) -> Iterator[list[bytes]]:
    """The records in PutRecordBatch-sized groups, in order."""
    batch: list[bytes] = []
    size = 0
    for record in records:
        if batch and (len(batch) == MAX_BATCH_RECORDS or size + len(record) > MAX_BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(record)
        size += len(record)
    if batch:
        yield batch


class FirehoseClickLake:
    """The click lake as one Firehose delivery stream."""

    def __init__(self, stream_name: str, client: Any = None) -> None:
        self._stream = stream_name
        self._client = client

    def _firehose(self) -> Any:
        if self._client is None:
            from shortlink.adapters.botocore_clients import botocore_client

            self._client = botocore_client("firehose")
        return self._client

    def deliver(self, records: Sequence[bytes]) -> None:
        """Put every record, or raise StorageUnavailable (some may have been stored: rows are
        counted once by their click id however often they arrive)."""
        for batch in batches(records):
            self._put(batch)

    def _put(self, batch: list[bytes]) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        pending = batch
        for attempt in range(ATTEMPTS):
            if attempt:
                time.sleep(FIRST_PAUSE_SECONDS * 2 ** (attempt - 1))
            try:
                answer = self._firehose().put_record_batch(
                    DeliveryStreamName=self._stream, Records=[{"Data": record} for record in pending]
                )
            except (BotoCoreError, ClientError) as error:
                raise StorageUnavailable(f"click lake records not delivered: {error}") from error
            if not answer.get("FailedPutCount"):
                return
            pending = [
                record
                for record, response in zip(pending, answer["RequestResponses"], strict=True)
                if response.get("ErrorCode")
            ]
        raise StorageUnavailable(f"click lake refused {len(pending)} records {ATTEMPTS} times")
