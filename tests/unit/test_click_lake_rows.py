"""The click lake's rows, records and reconciliation, and its named queries on a generated month
read with DuckDB from Parquet written as Firehose writes it (no stack: the rows are made directly)."""

import csv
import json
import random
import tracemalloc
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

from shortlink.clicks.events import ClickEvent
from shortlink.clicks.lake_reconciliation import Difference, differences
from shortlink.clicks.lake_rows import COLUMNS, MAX_RECORD_BYTES, ROWS_PER_RECORD, lake_records, lake_row, record_rows
from shortlink.clicks.tally import counter_increments, day_of, dimension_counter
from shortlink.links.model import logged_key
from tools.operators.click_lake import export
from tools.operators.click_lake.parquet import lake_connection, parquet_bytes
from tools.operators.click_lake.queries import QUERIES

AT = datetime(2026, 11, 30, 14, 5, 7, 123456, tzinfo=UTC)
PRIVATE = "Zq3xR7-kLm2_Np8sTu4vWx"


def test_a_row_holds_every_column_and_names_a_private_link_by_its_digest():
    click = ClickEvent(
        "c1", f"go.example/{PRIVATE}", AT, country="BR", agent="crawler", repeat=True, tags=("t",), owner="k1"
    )
    row = lake_row(click, "eu-west-1", "2+lists")
    assert list(row) == [name for name, _ in COLUMNS] + ["day"]
    assert row["link"] == logged_key(f"go.example/{PRIVATE}") != f"go.example/{PRIVATE}"
    assert PRIVATE not in str(row)
    assert (row["domain"], row["clicked_at"], row["day"]) == ("go.example", "2026-11-30T14:05:07.123Z", "2026-11-30")
    assert (row["bot"], row["repeat_click"], row["region"], row["classifier_version"]) == (
        True,
        True,
        "eu-west-1",
        "2+lists",
    )
    assert lake_row(ClickEvent("c2", "abc", AT), "r", "v")["link"] == "abc"


def test_rows_are_packed_into_records_that_split_back_into_them():
    rows = [lake_row(ClickEvent(f"c{n}", "abc", AT, referrer="r" * 200), "r", "v") for n in range(1_234)]
    records = lake_records(rows)
    assert [len(record_rows(record)) for record in records] == [ROWS_PER_RECORD, ROWS_PER_RECORD, 234]
    assert [row for record in records for row in record_rows(record)] == rows
    assert all(5 * 1024 < len(record) <= MAX_RECORD_BYTES for record in records)  # no 5 KB rounding paid
    huge = [{"day": "2026-11-30", "referrer": "r" * 400_000} for _ in range(5)]
    assert [len(record_rows(record)) for record in lake_records(huge)] == [2, 2, 1]


def test_the_reconciliation_names_each_link_day_that_differs():
    counters = {("abc", "2026-11-30"): 3, (PRIVATE, "2026-11-30"): 2, ("xyz", "2026-12-01"): 1}
    lake = {("abc", "2026-11-30"): 3, (logged_key(PRIVATE), "2026-11-30"): 2, ("xyz", "2026-12-01"): 1}
    assert differences(lake, counters) == []
    lake[("abc", "2026-11-30")] = 4
    del lake[("xyz", "2026-12-01")]
    assert differences(lake, counters) == [
        Difference("abc", "2026-11-30", 4, 3),
        Difference("xyz", "2026-12-01", 0, 1),
    ]


def generated_month(rng: random.Random) -> list[ClickEvent]:
    start = datetime(2026, 11, 1, tzinfo=UTC)
    return [
        ClickEvent(
            f"click-{n}",
            rng.choice(["aaa", "bbb", "ccc", f"go.example/{PRIVATE}"]),
            start + timedelta(seconds=rng.randrange(30 * 86_400)),
            country=rng.choice(["BR", "DE", "US", "XX"]),
            device=rng.choice(["mobile", "desktop", "bot"]),
            campaign=rng.choice(["(none)", "summer", "launch"]),
            agent="crawler" if rng.random() < 0.2 else "person",
            repeat=rng.random() < 0.1,
        )
        for n in range(3_000)
    ]


def lake_of(clicks: list[ClickEvent], folder: Path) -> duckdb.DuckDBPyConnection:
    """The clicks' rows written as Firehose writes them, an object per day, 2026-11-05's delivered twice."""
    rows = [lake_row(click, "us-east-1", "v") for click in clicks]
    for day in sorted({str(row["day"]) for row in rows}):
        (folder / "clicks" / f"day={day}").mkdir(parents=True)
        day_rows = [row for row in rows if row["day"] == day]
        (folder / "clicks" / f"day={day}" / "a.parquet").write_bytes(parquet_bytes(day_rows))
    repeated = folder / "clicks" / "day=2026-11-05"
    (repeated / "again.parquet").write_bytes((repeated / "a.parquet").read_bytes())
    return lake_connection(folder.glob("clicks/*/*.parquet"))


def test_each_named_query_gives_the_counters_answer_on_a_generated_month(tmp_path):
    # Given a month of clicks written as Firehose writes them, one day's objects delivered twice
    clicks = generated_month(random.Random(36))
    lake = lake_of(clicks, tmp_path)

    def answer(name: str) -> dict[object, int]:
        found = lake.execute(QUERIES[name].sql, ["2026-11-01", "2026-11-30"]).fetchall()
        return {row[:-1] if len(row) > 2 else row[0]: row[-1] for row in found}

    # Then each query counts as the counters do
    per_link: Counter[str] = Counter()
    per_day: Counter[tuple[str, str]] = Counter()
    for click in clicks:
        per_link[logged_key(click.code)] += counter_increments([click])["clicks"]
        per_day[(logged_key(click.code), day_of(click))] += 1
    assert answer("top-links") == dict(per_link)
    assert answer("clicks-per-link-day") == dict(per_day)
    countries = counter_increments(clicks)
    assert answer("clicks-by-country") == {
        country: countries[dimension_counter("country", country)] for country in ("BR", "DE", "US", "XX")
    }
    hours: Counter[datetime] = Counter()
    for click in clicks:
        hours[click.at.replace(minute=0, second=0, microsecond=0, tzinfo=None)] += 1
    assert answer("clicks-by-hour") == dict(hours)
    assert answer("campaign-by-device") == dict(Counter((click.campaign, click.device) for click in clicks))
    people = Counter(logged_key(click.code) for click in clicks if not click.bot and not click.repeat)
    assert answer("people-by-link") == dict(people)


def test_an_accounts_export_streams_its_rows_once_each_and_safe_for_spreadsheets(tmp_path, monkeypatch):
    # Given a month of two accounts' clicks in the lake, one day's object stored twice
    clicks = [
        replace(click, owner="k1" if n % 3 else "k2") for n, click in enumerate(generated_month(random.Random(7)))
    ]
    clicks.append(ClickEvent("formula", "aaa", datetime(2026, 11, 2, tzinfo=UTC), referrer="=HYPERLINK(1)", owner="k1"))
    lake = lake_of(clicks, tmp_path)
    monkeypatch.setattr(export, "BATCH_ROWS", 50)
    # When k1's month is exported as NDJSON and as CSV, into files
    ndjson, table = tmp_path / "k1.ndjson", tmp_path / "k1.csv"
    tracemalloc.start()
    with ndjson.open("w") as out:
        written = export.export_rows(lake, "k1", "2026-11-01", "2026-11-30", "ndjson", out)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    with table.open("w", newline="") as out:
        assert export.export_rows(lake, "k1", "2026-11-01", "2026-11-30", "csv", out) == written
    # Then each of k1's clicks is there once, no other account's, a batch at a time
    mine = {click.click_id for click in clicks if click.owner == "k1"}
    exported = [json.loads(line) for line in ndjson.read_text().splitlines()]
    assert written == len(mine) == len(exported)
    assert {row["click_id"] for row in exported} == mine
    assert peak < ndjson.stat().st_size / 2, peak  # a batch in memory at a time, never the month
    with table.open(newline="") as read:
        cells = {row["click_id"]: row for row in csv.DictReader(read)}
    assert cells["formula"]["referrer"] == "'=HYPERLINK(1)"
    assert len(cells) == written
