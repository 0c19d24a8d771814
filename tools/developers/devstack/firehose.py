"""A local Amazon Data Firehose for the click lake (`CLICK_LAKE=1 make dev`): ingest's
PutRecordBatch calls, through the same adapter, become Parquet objects in the local S3 as the
deployed delivery stream (click-lake.yaml) writes them. The lake's local Athena
(tools.developers.devstack.athena) answers on the same port.

What it does as Firehose does: JSON multi-record deaggregation (at most 500 rows per record),
the partition key `day` from each row (`clicks/day=YYYY-MM-DD/`), a buffer per partition written
as one Parquet object when the buffer interval passes (CLICK_LAKE_BUFFER_SECONDS, 5 s here; 60-900
deployed), rows it cannot read under `errors/`, object names `<stream>-1-<yyyy-MM-dd-HH-mm-ss>-<uuid>`.
`duplicate_every`: every n-th record is delivered twice, as Firehose may (at least once);
`refusing`: how many of the next records to refuse (ServiceUnavailableException), as a throttled
stream answers some records of a PutRecordBatch.
What it does not do: the 64 MB size buffer, Glue's schema lookup (the columns are
shortlink.clicks.lake_rows.COLUMNS), retries of S3 writes, encryption.
"""

import base64
import json
import os
import threading
import uuid
from collections import defaultdict
from contextlib import ExitStack
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from shortlink.clicks.lake_rows import PARTITION, ROWS_PER_RECORD, record_rows
from tools.developers.devstack.athena import LocalAthena, QueryRefused
from tools.developers.devstack.serving import HOST, ensure_free
from tools.developers.devstack.template import LocalTemplate
from tools.operators.click_lake.parquet import parquet_bytes
from tools.operators.click_lake.store import LOCAL_BUCKET, partition_prefix

TARGET_PREFIX = "Firehose_20150804."
ATHENA_PREFIX = "AmazonAthena."
STREAM_TYPE = "AWS::KinesisFirehose::DeliveryStream"
WORKGROUP_TYPE = "AWS::Athena::WorkGroup"
DATABASE_TYPE = "AWS::Glue::Database"


class LocalFirehose:
    """One delivery stream into one bucket."""

    def __init__(self, s3: Any, bucket: str, stream: str, buffer_seconds: float, duplicate_every: int = 0) -> None:
        self.s3, self.bucket, self.stream = s3, bucket, stream
        self.buffer_seconds = buffer_seconds
        self.duplicate_every = duplicate_every
        self.refusing = 0
        self._lock = threading.Lock()
        self._buffers: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._received = 0
        self._stop = threading.Event()

    def put_batch(self, records: list[bytes]) -> list[dict[str, str]]:
        """PutRecordBatch: its answer per record, taken or refused."""
        answers = []
        for record in records:
            if self.refusing > 0:
                self.refusing -= 1
                answers.append({"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "Slow down."})
            else:
                self.put([record])
                answers.append({"RecordId": uuid.uuid4().hex})
        return answers

    def put(self, records: list[bytes]) -> None:
        """Take records: each deaggregated into its rows, buffered by day."""
        for record in records:
            self._received += 1
            copies = 2 if self.duplicate_every and self._received % self.duplicate_every == 0 else 1
            for _ in range(copies):
                self._take(record)

    def _take(self, record: bytes) -> None:
        try:
            rows = record_rows(record)
            if len(rows) > ROWS_PER_RECORD or not all(isinstance(row.get(PARTITION), str) for row in rows):
                raise ValueError("not a record of click rows")
        except ValueError:
            self._write(f"errors/processing-failed/{datetime.now(UTC):%Y-%m-%d}/{self._name()}", record)
            return
        with self._lock:
            for row in rows:
                self._buffers[str(row[PARTITION])].append(row)

    def flush(self) -> None:
        """Write every buffer as one Parquet object per day."""
        with self._lock:
            buffers, self._buffers = self._buffers, defaultdict(list)
        for day, rows in sorted(buffers.items()):
            self._write(f"{partition_prefix(day)}{self._name()}.parquet", parquet_bytes(rows))

    def _name(self) -> str:
        return f"{self.stream}-1-{datetime.now(UTC):%Y-%m-%d-%H-%M-%S}-{uuid.uuid4()}"

    def _write(self, key: str, body: bytes) -> None:
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=body)

    def run(self) -> None:
        """Flush every buffer_seconds until stopped, then once more."""
        while not self._stop.wait(self.buffer_seconds):
            self.flush()
        self.flush()

    def stop(self) -> None:
        self._stop.set()


def _handler(firehose: LocalFirehose, athena: LocalAthena | None) -> type[BaseHTTPRequestHandler]:
    class FirehoseApi(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            target = self.headers.get("X-Amz-Target", "")
            if athena is not None and target.startswith(ATHENA_PREFIX):
                try:
                    return self._answer(200, athena.answer(target.removeprefix(ATHENA_PREFIX), body))
                except QueryRefused as refused:
                    return self._answer(400, {"__type": "InvalidRequestException", "Message": str(refused)})
            operation = target.removeprefix(TARGET_PREFIX)
            if body.get("DeliveryStreamName") != firehose.stream:
                return self._answer(400, {"__type": "ResourceNotFoundException", "message": "no such delivery stream"})
            if operation == "PutRecordBatch":
                answers = firehose.put_batch([base64.b64decode(record["Data"]) for record in body.get("Records", [])])
                failed = sum("ErrorCode" in answer for answer in answers)
                return self._answer(200, {"FailedPutCount": failed, "Encrypted": False, "RequestResponses": answers})
            if operation == "PutRecord":
                firehose.put([base64.b64decode(body["Record"]["Data"])])
                return self._answer(200, {"RecordId": uuid.uuid4().hex, "Encrypted": False})
            return self._answer(400, {"__type": "InvalidArgumentException", "message": f"not emulated: {operation}"})

        def _answer(self, status: int, answer: dict[str, Any]) -> None:
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/x-amz-json-1.1")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: ingest logs its own deliveries."""

    return FirehoseApi


def serve_firehose(firehose: LocalFirehose, port: int, running: ExitStack, athena: LocalAthena | None = None) -> str:
    """Serve the Firehose API (and `athena`'s, on the same port) on `port` (0: any free one) and
    flush on the buffer interval, both stopped with `running`; the URL."""
    ensure_free(port, "the local Firehose needs it: set CLICK_LAKE_PORT=<free port>")
    server = ThreadingHTTPServer((HOST, port), _handler(firehose, athena))
    threads = [threading.Thread(target=server.serve_forever, daemon=True), threading.Thread(target=firehose.run)]
    for thread in threads:
        thread.start()
    running.callback(threads[1].join, timeout=10)
    running.callback(firehose.stop)
    running.callback(server.server_close)
    running.callback(server.shutdown)
    return f"http://{HOST}:{server.server_address[1]}"


def click_lake_on() -> bool:
    """Whether `make dev` runs the click lake (CLICK_LAKE=1)."""
    return os.environ.get("CLICK_LAKE") == "1"


def start_click_lake(template: LocalTemplate, s3_endpoint: str, running: ExitStack) -> dict[str, str]:
    """Create the local lake's bucket and serve its delivery stream and its Athena workgroup
    (named after the template's, as tables and queues are); the functions' variables that send
    ingest's rows there and run the exports' and the daily check's queries."""
    import boto3
    from botocore.config import Config

    [stream], [workgroup], [database] = (
        template.resources(kind) for kind in (STREAM_TYPE, WORKGROUP_TYPE, DATABASE_TYPE)
    )
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, config=Config(s3={"addressing_style": "path"}))
    s3.create_bucket(Bucket=LOCAL_BUCKET)
    buffer_seconds = float(os.environ.get("CLICK_LAKE_BUFFER_SECONDS", "5"))
    firehose = LocalFirehose(s3, LOCAL_BUCKET, stream, buffer_seconds)
    athena = LocalAthena(s3, LOCAL_BUCKET, workgroup)
    url = serve_firehose(firehose, int(os.environ.get("CLICK_LAKE_PORT", "5007")), running, athena)
    return {
        "CLICK_LAKE_STREAM": stream,
        "AWS_ENDPOINT_URL_FIREHOSE": url,
        "CLICK_LAKE_WORKGROUP": workgroup,
        "CLICK_LAKE_DATABASE": database,
        "CLICK_LAKE_BUCKET": LOCAL_BUCKET,
        "AWS_ENDPOINT_URL_ATHENA": url,
        # The exports' download links name the local S3, so they download from this machine.
        "AWS_ENDPOINT_URL_S3": s3_endpoint,
    }
