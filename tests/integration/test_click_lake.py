"""The click lake end to end on one machine: ingest's rows through the Firehose adapter into the
local Firehose (tools.developers.devstack.firehose), Parquet in moto's S3, read with DuckDB; the
reconciliation with the counters, erasure, and what the files never hold."""

import json
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest

from shortlink import wiring as services
from shortlink.adapters.dynamodb.counted_link_days import counted_link_days
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.clicks.lake_reconciliation import Difference, differences
from shortlink.clicks.lake_rows import lake_records, lake_row
from shortlink.links.model import logged_key
from tests.integration.ingest_faults import record
from tests.integration.test_flow import drain_clicks
from tools.developers.devstack.firehose import LocalFirehose, serve_firehose
from tools.operators.click_lake.__main__ import parse_arguments, run
from tools.operators.click_lake.parquet import lake_connection, parquet_bytes
from tools.operators.click_lake.queries import RECONCILIATION
from tools.operators.click_lake.store import LOCAL_BUCKET, LakeBucket

DAY = datetime(2026, 11, 30, 14, 5, tzinfo=UTC)
PRIVATE = "Zq3xR7-kLm2_Np8sTu4vWx"  # a private code's length: hashed in every row
FIRST, LAST = "2026-11-29", "2026-12-01"


@pytest.fixture
def lake(aws, monkeypatch) -> Iterator[LocalFirehose]:
    """The local Firehose in front of moto's S3, and ingest sending to it; every 3rd record
    delivered twice, as Firehose may."""
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket=LOCAL_BUCKET)
    firehose = LocalFirehose(s3, LOCAL_BUCKET, "ClickLakeDeliveryStream", buffer_seconds=3600, duplicate_every=3)
    with ExitStack() as running:
        monkeypatch.setenv("AWS_ENDPOINT_URL_FIREHOSE", serve_firehose(firehose, 0, running))
        monkeypatch.setenv("CLICK_LAKE_STREAM", firehose.stream)
        services.reset()
        yield firehose


def pack(*clicks: ClickEvent) -> str:
    return ClickPack(uuid.uuid4().hex, clicks).to_json()


def click(code: str, at: datetime = DAY, **fields: object) -> ClickEvent:
    return ClickEvent(uuid.uuid4().hex, code, at, **fields)  # type: ignore[arg-type]


def lake_counts(folder: Path) -> tuple[dict[tuple[str, str], int], int]:
    """The lake's clicks per (link, day), and how many rows it holds (each click id once or more)."""
    database = lake_connection(LakeBucket(boto3.client("s3"), LOCAL_BUCKET).download(FIRST, LAST, folder))
    counts = {(link, day): n for link, day, n in database.execute(RECONCILIATION.sql, [FIRST, LAST]).fetchall()}
    [(rows,)] = database.execute("SELECT count(*) FROM clicks").fetchall()
    return counts, rows


def counters():
    return counted_link_days(boto3.client("dynamodb"), services.resources().click_stats_table.value, FIRST, LAST)


def test_rows_equal_counted_clicks_through_redelivered_batches_and_duplicated_records(aws, handlers, lake, tmp_path):
    # Given packs of clicks on three links over two days, one of them private
    batch = [
        record("m1", pack(click("aaa"), click("aaa", agent="crawler"), click(PRIVATE))),
        record("m2", pack(click("aaa", at=DAY + timedelta(days=1)), click("go.localhost/bbb", repeat=True))),
        record("m3", pack(*(click("bbb", country="DE") for _ in range(40)))),
    ]
    # When ingest counts them, then SQS offers m2 again (twice in one batch) with a new pack
    assert handlers["IngestFunction"]({"Records": batch}, None) == {"batchItemFailures": []}
    again = [batch[1], record("m4", pack(click("aaa"))), batch[1]]
    assert handlers["IngestFunction"]({"Records": again}, None) == {"batchItemFailures": []}
    lake.flush()
    # Then the lake holds exactly the counted clicks per link and day, though rows came twice
    found, rows = lake_counts(tmp_path / "first")
    assert differences(found, counters()) == []
    assert found[(logged_key(PRIVATE), "2026-11-30")] == 1
    assert sum(found.values()) == 46 < rows  # m2's rows were sent twice, a record was stored twice
    # When a row is dropped and a click is counted twice under another id
    database = lake_connection(LakeBucket(boto3.client("s3"), LOCAL_BUCKET).download(FIRST, LAST, tmp_path / "two"))
    kept = database.execute(
        "SELECT * EXCLUDE (day) FROM clicks WHERE country <> 'DE' OR click_id <> "
        "(SELECT min(click_id) FROM clicks WHERE country = 'DE')"
    ).fetchall()
    names = [column[0] for column in database.description]
    rows_kept = [dict(zip(names, row, strict=True)) for row in kept]
    extra = lake_row(click("aaa"), "us-east-1", "test")
    s3 = boto3.client("s3")
    for key in LakeBucket(s3, LOCAL_BUCKET).keys(FIRST, LAST):
        s3.delete_object(Bucket=LOCAL_BUCKET, Key=key)
    for day in ("2026-11-30", "2026-12-01"):
        day_rows = [row for row in rows_kept if row["clicked_at"].date().isoformat() == day]
        s3.put_object(Bucket=LOCAL_BUCKET, Key=f"clicks/day={day}/rewritten.parquet", Body=parquet_bytes(day_rows))
    lake.put(lake_records([extra]))
    lake.flush()
    # Then the reconciliation reports both
    found, _ = lake_counts(tmp_path / "after")
    assert differences(found, counters()) == [
        Difference("aaa", "2026-11-30", 4, 3),
        Difference("bbb", "2026-11-30", 39, 40),
    ]


def test_refused_records_are_offered_again_and_an_undelivered_batch_comes_back(aws, handlers, lake, tmp_path):
    # Given a stream that refuses the next two records, as a throttled one does
    lake.refusing = 2
    first = [record("m1", pack(*(click("aaa") for _ in range(3))))]
    # When ingest sends a batch's rows (one record)
    assert handlers["IngestFunction"]({"Records": first}, None) == {"batchItemFailures": []}
    # Then the adapter offered the refused records again until they were taken
    assert lake.refusing == 0
    # When the stream refuses everything for longer than the adapter tries
    lake.refusing = 1_000
    second = record("m9", pack(click("bbb")))
    result = handlers["IngestFunction"]({"Records": [second]}, None)
    # Then the clicks are counted, but the message comes back for the lake
    assert result == {"batchItemFailures": [{"itemIdentifier": "m9"}]}
    # And when it comes back, the ledger skips its count and the lake takes its rows
    lake.refusing = 0
    assert handlers["IngestFunction"]({"Records": [second]}, None) == {"batchItemFailures": []}
    lake.flush()
    found, _ = lake_counts(tmp_path)
    assert found == counters() == {("aaa", "2026-11-30"): 3, ("bbb", "2026-11-30"): 1}


def test_no_private_code_address_or_user_agent_in_any_file(aws, handlers, api, lake):
    # Given a private link followed by a visitor with a known address and User-Agent
    key = aws.new_api_key()
    code = api.new_link(key, url="https://example.com/secret", private=True)["code"]
    agent = "Mozilla/5.0 (X11; Linux x86_64) LakeProbe/7.3"
    for _ in range(2):
        assert api.follow(code, headers={"user-agent": agent}, source_ip="198.51.100.77").status == 302
    # When ingest counts the clicks and the lake writes them
    assert drain_clicks(aws, handlers) == 2
    lake.flush()
    # Then no object holds the code, the address or the User-Agent, and the rows are there
    s3 = boto3.client("s3")
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=LOCAL_BUCKET)["Contents"]]
    written = b"".join(s3.get_object(Bucket=LOCAL_BUCKET, Key=key)["Body"].read() for key in keys)
    assert logged_key(code).encode() in written
    for secret in (code, "198.51.100.77", "LakeProbe", "Mozilla/5.0"):
        assert secret.encode() not in written, secret


def test_erasing_a_link_removes_its_rows_alone(aws, handlers, lake, tmp_path, capsys):
    # Given clicks of two links on two days in the lake
    batch = [record("m1", pack(click("aaa"), click("bbb"), click("aaa", at=DAY + timedelta(days=1))))]
    assert handlers["IngestFunction"]({"Records": batch}, None) == {"batchItemFailures": []}
    lake.flush()
    where = ["--bucket", LOCAL_BUCKET, "--from", FIRST, "--to", LAST]
    table = ["--click-stats-table", services.resources().click_stats_table.value]
    assert command(["reconcile", *where, *table], tmp_path / "before", capsys) == (0, [])
    # When its owner asks for aaa's rows to be erased
    assert command(["erase", "aaa", *where], tmp_path / "erase", capsys) == (
        0,
        [f"2 rows of aaa erased from {FIRST} to {LAST}"],
    )
    # Then the lake holds bbb's click only, and the reconciliation shows what was erased
    assert command(["query", "top-links", *where], tmp_path / "top", capsys) == (0, ["link\tclicks", "bbb\t1"])
    assert command(["reconcile", *where, *table], tmp_path / "after", capsys) == (
        1,
        ["2026-11-30\taaa\tlake 0\tcounters 1", "2026-12-01\taaa\tlake 0\tcounters 1"],
    )


def command(argv: list[str], folder: Path, capsys) -> tuple[int, list[str]]:
    """Run python -m tools.operators.click_lake with these arguments: its exit code and the lines it printed."""
    folder.mkdir()
    capsys.readouterr()  # what ingest logged before
    code = run(parse_arguments(argv), folder)
    return code, capsys.readouterr().out.splitlines()


def athena_answers(rows: dict[tuple[str, str], int]) -> None:
    """moto's Athena runs no SQL: its next query answers these (link, day, clicks) rows, header first."""
    from moto.athena.models import QueryResults, athena_backends

    cells = [("link", "day", "clicks"), *((link, day, str(n)) for (link, day), n in sorted(rows.items()))]
    columns = [{"Name": name, "Type": "varchar"} for name in cells[0]]
    results = QueryResults([{"Data": [{"VarCharValue": value} for value in row]} for row in cells], columns)
    athena_backends[boto3.client("sts").get_caller_identity()["Account"]]["us-east-1"].query_results_queue.append(
        results
    )


def test_the_daily_check_queries_athena_in_the_workgroup_and_counts_the_differences(
    aws, handlers, lake, tmp_path, monkeypatch, capsys, caplog
):
    # Given clicks counted by ingest and written to the lake, and the lake's workgroup
    batch = [record("m1", pack(click("aaa"), click("aaa"), click(PRIVATE), *(click("bbb") for _ in range(5))))]
    assert handlers["IngestFunction"]({"Records": batch}, None) == {"batchItemFailures": []}
    lake.flush()
    athena = boto3.client("athena")
    athena.create_work_group(
        Name="shortlink-click-lake",
        Configuration={"ResultConfiguration": {"OutputLocation": f"s3://{LOCAL_BUCKET}/athena-results/"}},
    )
    monkeypatch.setenv("CLICK_LAKE_WORKGROUP", "shortlink-click-lake")
    monkeypatch.setenv("CLICK_LAKE_DATABASE", "shortlink_click_lake")
    services.reset()
    found, _ = lake_counts(tmp_path / "lake")
    # When the check runs for that day and Athena answers what DuckDB reads from the same Parquet
    athena_answers(found)
    capsys.readouterr()
    assert handlers["LakeCheckFunction"]({"day": "2026-11-30"}) == {"day": "2026-11-30", "differences": 0}
    # Then it ran the named query in the workgroup for that day, and says there is no difference
    (execution,) = athena.list_query_executions(WorkGroup="shortlink-click-lake")["QueryExecutionIds"]
    query = athena.get_query_execution(QueryExecutionId=execution)["QueryExecution"]
    assert (query["Query"], query["ExecutionParameters"]) == (RECONCILIATION.sql, ["'2026-11-30'", "'2026-11-30'"])
    assert emitted_differences(capsys.readouterr().out) == [0]
    # When the lake has lost a row of bbb's and the private link's row entirely
    athena_answers({**found, ("bbb", "2026-11-30"): 4, (logged_key(PRIVATE), "2026-11-30"): 0})
    assert handlers["LakeCheckFunction"]({"day": "2026-11-30"}) == {"day": "2026-11-30", "differences": 2}
    # Then the metric counts both, and the log names them, the private link by its digest only
    assert emitted_differences(capsys.readouterr().out) == [2]
    named = [vars(line) for line in caplog.records if line.getMessage() == "click lake differs from the counters"]
    assert sorted((line["link"], line["lake"], line["counters"]) for line in named) == sorted(
        [("bbb", 4, 5), (logged_key(PRIVATE), 0, 1)]
    )
    assert PRIVATE not in caplog.text


def emitted_differences(out: str) -> list[float]:
    """The ClickLakeDifferences values of the EMF documents Powertools printed."""
    documents = [json.loads(line) for line in out.splitlines() if line.startswith('{"_aws"')]
    return [value for document in documents for value in document.get("ClickLakeDifferences", [])]
