"""The click lake's rows, records and reconciliation, and its named queries on a generated month
read with DuckDB from Parquet written as Firehose writes it (no stack: the rows are made directly)."""

import csv
import json
import random
import tracemalloc
from collections import Counter
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from shortlink.adapters.athena.click_exports import literal
from shortlink.clicks.agent_classes import BOT_CLASSES
from shortlink.clicks.events import ClickEvent
from shortlink.clicks.lake_exports import CSV_SQL, MAX_EXPORT_DAYS, ExportRequest, InvalidExport, export_request
from shortlink.clicks.lake_reconciliation import Difference, differences
from shortlink.clicks.lake_rows import COLUMNS, MAX_RECORD_BYTES, ROWS_PER_RECORD, lake_records, lake_row, record_rows
from shortlink.clicks.tally import agent_counter, counter_increments, day_of, dimension_counter
from shortlink.links.model import logged_key
from tools.developers.devstack.athena import with_parameters
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
    assert row["agent"] == "crawler"
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
            agent=rng.choice(BOT_CLASSES) if rng.random() < 0.2 else "person",
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
    # The counters keep each day's bots per class: people are the clicks less the bots
    agents: dict[tuple[str, str], int] = {}
    for day in {day_of(click) for click in clicks}:
        counted = counter_increments(click for click in clicks if day_of(click) == day)
        for agent in BOT_CLASSES:
            agents[(agent, day)] = counted[agent_counter(agent)]
        agents[("person", day)] = counted["clicks"] - counted["bots"]
    assert answer("clicks-by-agent") == {found: n for found, n in agents.items() if n}


@pytest.fixture(scope="module")
def two_accounts(tmp_path_factory) -> tuple[list[ClickEvent], duckdb.DuckDBPyConnection]:
    """A month of two accounts' clicks in the lake, one day's object stored twice, and referrers and
    campaigns a visitor chose to look like formulas."""
    clicks = [
        replace(click, owner="k1" if n % 3 else "k2") for n, click in enumerate(generated_month(random.Random(7)))
    ]
    clicks += [
        ClickEvent("formula", "aaa", datetime(2026, 11, 2, tzinfo=UTC), referrer="=HYPERLINK(1)", owner="k1"),
        ClickEvent("plus", "aaa", datetime(2026, 11, 2, tzinfo=UTC), campaign="+cmd", agent="scanner", owner="k1"),
    ]
    return clicks, lake_of(clicks, tmp_path_factory.mktemp("month"))


def test_an_accounts_export_streams_its_rows_once_each_and_safe_for_spreadsheets(two_accounts, tmp_path, monkeypatch):
    # Given a month of two accounts' clicks in the lake, one day's object stored twice
    clicks, lake = two_accounts
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


def test_an_export_request_names_what_is_wrong():
    today = date(2026, 12, 6)
    assert export_request("2026-12-01", "2026-12-06", "parquet", today) == ExportRequest(
        "2026-12-01", "2026-12-06", "parquet"
    )
    refused = {
        ("2026-12-0\u0661", "2026-12-06", "csv"): "from: must be a day as YYYY-MM-DD in the digits 0-9",
        ("2026-12-01", " 2026-12-06", "csv"): "to: must be a day as YYYY-MM-DD in the digits 0-9",
        ("2026-02-30", "2026-03-01", "csv"): "from: 2026-02-30 is not a day of the calendar",
        ("2026-12-06", "2026-12-01", "csv"): "to: 2026-12-01 is before from (2026-12-06)",
        ("2026-01-01", "2026-12-06", "csv"): f"to: an export covers at most {MAX_EXPORT_DAYS} days",
        ("2026-12-07", "2026-12-08", "csv"): "from: 2026-12-07 has no clicks yet",
        ("2026-12-01", "2026-12-06", "xlsx"): "format: must be one of csv, parquet",
        (None, "2026-12-06", "csv"): "from: must be a day as YYYY-MM-DD in the digits 0-9",
    }
    for (first, last, form), message in refused.items():
        with pytest.raises(InvalidExport) as error:
            export_request(first, last, form, today)
        assert str(error.value) == message


def test_the_export_query_gives_one_accounts_rows_once_each_and_safe_for_spreadsheets(two_accounts):
    # Given a month of two accounts' clicks in the lake (two_accounts)
    clicks, lake = two_accounts
    # When the export's query runs for k1, as Athena runs it (its parameters as SQL literals)
    parameters = [literal("2026-11-01"), literal("2026-11-30"), literal("k1")]
    answer = lake.execute(with_parameters(CSV_SQL, parameters))
    names = [column[0] for column in answer.description]
    rows = [dict(zip(names, row, strict=True)) for row in answer.fetchall()]
    # Then each of k1's clicks is there once, in time order, with every column, and no other account's
    assert names == [name for name, _ in COLUMNS]
    assert [row["click_id"] for row in rows] == [
        click.click_id for click in sorted((c for c in clicks if c.owner == "k1"), key=lambda c: (c.at, c.click_id))
    ]
    by_id = {row["click_id"]: row for row in rows}
    assert (by_id["formula"]["referrer"], by_id["plus"]["utm_campaign"]) == ("'=HYPERLINK(1)", "'+cmd")
    assert by_id["plus"]["agent"] == "scanner"
    # And an account named to break out of its literal reads nothing
    hostile = [*parameters[:2], literal("k1' OR owner <> '")]
    assert lake.execute(with_parameters(CSV_SQL, hostile)).fetchall() == []
