"""The click lake on one machine for integration tests: the local Firehose and the lake's local
Athena (tools.developers.devstack) on one port, in front of moto's S3, and the functions'
variables that send ingest's rows there and run the raw exports' queries."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import boto3
import pytest

from shortlink import wiring as services
from tools.developers.devstack.athena import LocalAthena
from tools.developers.devstack.firehose import LocalFirehose, serve_firehose
from tools.operators.click_lake.store import LOCAL_BUCKET

WORKGROUP = "ClickLakeWorkGroup"


@contextmanager
def local_lake(
    monkeypatch: pytest.MonkeyPatch, duplicate_every: int = 0
) -> Iterator[tuple[LocalFirehose, LocalAthena]]:
    """The lake's bucket, stream and workgroup, served until the block ends (its queries waited for);
    every `duplicate_every`-th record delivered twice, as Firehose may."""
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket=LOCAL_BUCKET)
    firehose = LocalFirehose(s3, LOCAL_BUCKET, "ClickLakeDeliveryStream", 3600, duplicate_every)
    athena = LocalAthena(s3, LOCAL_BUCKET, WORKGROUP)
    with ExitStack() as running:
        url = serve_firehose(firehose, 0, running, athena)
        running.callback(athena.wait)
        variables = {"CLICK_LAKE_STREAM": firehose.stream, "CLICK_LAKE_WORKGROUP": WORKGROUP}
        variables |= {"CLICK_LAKE_DATABASE": "shortlink_click_lake", "CLICK_LAKE_BUCKET": LOCAL_BUCKET}
        for name, value in {**variables, "AWS_ENDPOINT_URL_FIREHOSE": url, "AWS_ENDPOINT_URL_ATHENA": url}.items():
            monkeypatch.setenv(name, value)
        services.reset()
        yield firehose, athena
