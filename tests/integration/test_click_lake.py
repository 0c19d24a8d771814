"""The click lake end to end on one machine: ingest's rows through the Firehose adapter into the
local Firehose (tools.developers.devstack.firehose), Parquet in moto's S3, read with DuckDB; the
reconciliation with the counters, erasure, and what the files never hold."""

import csv
import html
import io
import json
import re
import tracemalloc
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import boto3
import duckdb
import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from shortlink.adapters.dynamodb.counted_link_days import counted_link_days
from shortlink.audit.queries import AuditQuery
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.clicks.lake_reconciliation import Difference, differences
from shortlink.clicks.lake_rows import lake_records, lake_row
from shortlink.links.model import logged_key
from tests.events import bearer, http_event
from tests.integration.ingest_faults import record
from tests.integration.local_lake import local_lake
from tests.integration.test_console import Browser, signed_in
from tests.integration.test_flow import drain_clicks
from tools.developers.devstack.firehose import LocalFirehose
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
    delivered twice, as Firehose may. The lake's local Athena (`lake.athena`) on the same port
    runs the exports' queries."""
    with local_lake(monkeypatch, duplicate_every=3) as (firehose, athena):
        firehose.athena = athena  # type: ignore[attr-defined]
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
    # When ingest counts the clicks, the lake writes them, and the account exports them (CSV, Parquet)
    assert drain_clicks(aws, handlers) == 2
    lake.flush()
    today = datetime.now(UTC).date().isoformat()
    for form in ("csv", "parquet"):
        status, _ = export_call(handlers, key, "POST", "/clicks/exports", {"from": today, "to": today, "format": form})
        assert status == 202
    lake.athena.wait()
    # Then no object holds the code, the address or the User-Agent, and the rows are there
    s3 = boto3.client("s3")
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=LOCAL_BUCKET)["Contents"]]
    assert {key.split("/")[0] for key in keys} == {"clicks", "athena-results", "exports"}
    written = b"".join(s3.get_object(Bucket=LOCAL_BUCKET, Key=key)["Body"].read() for key in keys)
    assert written.count(logged_key(code).encode()) >= 3  # the lake's Parquet, the CSV, the Parquet export
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
    monkeypatch.delenv("AWS_ENDPOINT_URL_ATHENA")  # moto's Athena, whose answers the test chooses
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


def export_call(handlers, key: str, method: str, path: str, body: object = None) -> tuple[int, dict[str, Any]]:
    """One call of the raw export routes (the transfer function's), as API Gateway sends it."""
    route = "/clicks/exports" if path == "/clicks/exports" else "/clicks/exports/{export_id}"
    parameters = {} if route == path else {"export_id": path.rsplit("/", 1)[1]}
    event = http_event(method, path, route=route, path_parameters=parameters, headers=bearer(key), body=body)
    answer = handlers["TransferFunction"](event)
    return answer["statusCode"], json.loads(answer["body"])


def finished_export(handlers, lake, key: str, export_id: str) -> dict[str, Any]:
    lake.athena.wait()
    status, job = export_call(handlers, key, "GET", f"/clicks/exports/{export_id}")
    assert (status, job["state"]) == (200, "succeeded"), job
    return job


def object_of(url: str) -> tuple[str, str]:
    """The bucket and key a presigned GET names (virtual-hosted or path-style), checked to be signed for 15 minutes."""
    parts = urlsplit(url)
    assert "X-Amz-Signature=" in parts.query, url
    assert "X-Amz-Expires=900" in parts.query, url
    path = unquote(parts.path.lstrip("/"))
    if ".s3." in parts.netloc:
        return parts.netloc.split(".s3.", 1)[0], path
    bucket, key = path.split("/", 1)
    return bucket, key


def downloaded(url: str) -> bytes:
    """The object a presigned URL names (moto runs in this process: read as the link would read it)."""
    bucket, key = object_of(url)
    return bytes(boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read())


def test_an_accounts_raw_export_through_the_api_holds_its_clicks_alone(aws, handlers, lake, tmp_path):
    # Given two accounts, and clicks of both counted into the lake (a formula in a referrer, a
    # record stored twice)
    mine, theirs = aws.new_api_key("mine"), aws.new_api_key("theirs")
    owner = services.api_key_store().find_by_hash(hash_api_key(mine)).owner  # type: ignore[union-attr]
    other = services.api_key_store().find_by_hash(hash_api_key(theirs)).owner  # type: ignore[union-attr]
    batch = [
        record("m1", pack(*(click("aaa", owner=owner, referrer=f"=cmd{n}") for n in range(7)))),
        record("m2", pack(*(click("bbb", owner=other) for _ in range(5)))),
        record("m3", pack(click("aaa", at=DAY + timedelta(days=1), owner=owner, agent="scanner"))),
    ]
    assert handlers["IngestFunction"]({"Records": batch}, None) == {"batchItemFailures": []}
    lake.flush()
    # When the account asks for a CSV and a Parquet export of those days
    request = {"from": FIRST, "to": LAST, "format": "csv"}
    status, started = export_call(handlers, mine, "POST", "/clicks/exports", request)
    assert (status, started["state"], started["format"]) == (202, "running", "csv"), started
    csv_job = finished_export(handlers, lake, mine, started["export_id"])
    status, started = export_call(handlers, mine, "POST", "/clicks/exports", {**request, "format": "parquet"})
    assert status == 202
    parquet_job = finished_export(handlers, lake, mine, started["export_id"])
    # Then the CSV holds each of its clicks once, formulas neutralised, and not one of the other account's
    [csv_file] = csv_job["files"]
    rows = list(csv.DictReader(io.StringIO(downloaded(csv_file).decode())))
    assert len(rows) == 8
    assert {row["owner"] for row in rows} == {owner}
    assert sorted(row["referrer"] for row in rows)[:2] == ["'=cmd0", "'=cmd1"]
    assert [row["agent"] for row in rows][-1] == "scanner"
    # And the Parquet the same rows
    files = []
    for n, url in enumerate(parquet_job["files"]):
        files.append(tmp_path / f"{n}.parquet")
        files[-1].write_bytes(downloaded(url))
    exported = duckdb.connect().execute("SELECT click_id FROM read_parquet(?)", [[str(path) for path in files]])
    assert sorted(click_id for (click_id,) in exported.fetchall()) == sorted(row["click_id"] for row in rows)
    # And the other account sees neither export, and its own holds its clicks alone
    assert export_call(handlers, theirs, "GET", f"/clicks/exports/{csv_job['export_id']}")[0] == 404
    status, started = export_call(handlers, theirs, "POST", "/clicks/exports", request)
    theirs_job = finished_export(handlers, lake, theirs, started["export_id"])
    assert downloaded(theirs_job["files"][0]).decode().count(other) == 5
    # And each export started is one audit entry of its account
    entries = services.audit_trail().page(owner, AuditQuery(target_kind="export")).entries
    assert sorted(entry.target.id for entry in entries) == sorted([csv_job["export_id"], parquet_job["export_id"]])


def test_a_bad_export_request_is_refused_naming_the_field_and_starts_nothing(aws, handlers, lake):
    key = aws.new_api_key()
    for body, message in [
        ({"from": "2026-11-3O", "to": LAST}, "from: must be a day as YYYY-MM-DD in the digits 0-9"),
        ({"from": LAST, "to": FIRST}, f"to: {FIRST} is before from ({LAST})"),
        ({"from": "2026-01-01", "to": LAST}, "to: an export covers at most 92 days"),
    ]:
        assert export_call(handlers, key, "POST", "/clicks/exports", body) == (
            422, {"error": "invalid_request", "message": message},
        )  # fmt: skip
    status, refused = export_call(
        handlers, key, "POST", "/clicks/exports", {"from": FIRST, "to": LAST, "format": "xls"}
    )
    assert (status, refused["message"].split(":")[0]) == (422, "format")
    assert export_call(handlers, key, "GET", "/clicks/exports/00000000-0000-4000-8000-000000000000")[0] == 404
    lake.athena.wait()
    assert lake.athena.started == 0


def test_the_export_streams_a_month_without_the_function_holding_it(aws, handlers, lake):
    # Given a month of one account's clicks in the lake (3,000 rows)
    key = aws.new_api_key()
    owner = services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]
    start = datetime(2026, 11, 1, tzinfo=UTC)
    rows = [
        lake_row(click("aaa", at=start + timedelta(seconds=n * 864), owner=owner, referrer=f"r{n}.example"), "r", "v")
        for n in range(3_000)
    ]
    lake.put(lake_records(rows))
    lake.flush()

    def traced_export(first: str, last: str) -> tuple[dict[str, Any], int]:
        """The export of these days through the API, and the most the function's calls allocated."""
        with lake.athena.queueing():  # the engine (in this process) waits while the function is traced
            tracemalloc.start()
            status, started = export_call(handlers, key, "POST", "/clicks/exports", {"from": first, "to": last})
            _, starting = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert status == 202, started
        lake.athena.wait()  # the engine writes the file
        tracemalloc.start()
        status, job = export_call(handlers, key, "GET", f"/clicks/exports/{started['export_id']}")
        _, answering = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert job["state"] == "succeeded", job
        return job, max(starting, answering)

    # When a day without clicks is exported (twice: the first makes the function's clients), then the month
    traced_export("2026-10-01", "2026-10-01")
    _, empty = traced_export("2026-10-01", "2026-10-01")
    job, month = traced_export("2026-11-01", "2026-11-30")
    # Then every row is in the file, read back a line at a time, and the function held none of them:
    # exporting the month took it no more memory than exporting nothing
    bucket, path = object_of(job["files"][0])
    size, lines = 0, 0
    for line in boto3.client("s3").get_object(Bucket=bucket, Key=path)["Body"].iter_lines():
        size, lines = size + len(line), lines + 1
    assert lines == 3_001
    assert month < empty + 32 * 1024 < size / 2, (month, empty, size)


def test_the_console_exports_raw_clicks_without_a_script(aws, handlers, lake):
    # Given an account's clicks in the lake, and its key signed in to the console
    key = aws.new_api_key()
    owner = services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]
    batch = [record("m1", pack(click("aaa", owner=owner), click("aaa", owner=owner, campaign="@launch")))]
    assert handlers["IngestFunction"]({"Records": batch}, None) == {"batchItemFailures": []}
    lake.flush()
    console = signed_in(Browser(handlers), key)
    assert 'href="/console/exports"' in console.get("/console/overview")["body"]
    form = console.get("/console/exports")
    assert form["statusCode"] == 200
    assert 'id="export-form"' in form["body"]
    # When a range it cannot have is sent, then it is told which field is wrong
    refused = console.post("/console/exports", {"csrf": console.csrf(), "from": LAST, "to": FIRST, "format": "csv"})
    assert refused["statusCode"] == 422
    assert f"to: {FIRST} is before from ({LAST})" in refused["body"]
    # When the days are sent, then its page reloads itself while the export runs, then links to the file
    with lake.athena.queueing():
        answer = console.post("/console/exports", {"csrf": console.csrf(), "from": FIRST, "to": LAST, "format": "csv"})
        assert answer["statusCode"] == 303
        page = answer["headers"]["Location"]
        assert '<meta http-equiv="refresh"' in console.get(page)["body"]
    lake.athena.wait()
    done = console.get(page)["body"]
    assert '<meta http-equiv="refresh"' not in done
    [url] = re.findall(r'<li><a href="([^"]+)" download>', done)
    rows = list(csv.DictReader(io.StringIO(downloaded(html.unescape(url)).decode())))
    assert sorted(row["utm_campaign"] for row in rows) == ["'@launch", "(none)"]
    # And another account's session finds no such export
    other = signed_in(Browser(handlers), aws.new_api_key("other"))
    assert other.get(page)["statusCode"] == 404
