"""The click lake's daily check: the reconciliation of two ports, Athena's adapter of the lake's
side (a fake client: its calls, its waiting, its refusals), and the day the schedule checks."""

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from shortlink.adapters.athena.click_lake_queries import AthenaLakeLinkDays
from shortlink.clicks.lake_reconciliation import CLICKS_PER_LINK_DAY_SQL, Difference, LinkDay, reconcile
from shortlink.errors import StorageUnavailable
from shortlink.links.model import logged_key
from tools.developers.devstack.lambda_runtime import load_handler

PRIVATE = "Zq3xR7-kLm2_Np8sTu4vWx"


class Counts:
    def __init__(self, counts: dict[LinkDay, int]) -> None:
        self.counts = counts
        self.asked: list[tuple[str, str]] = []

    def clicks_per_link_day(self, first: str, last: str) -> dict[LinkDay, int]:
        self.asked.append((first, last))
        return self.counts


def test_the_reconciliation_asks_both_sides_for_the_same_days_and_names_private_links_hashed():
    lake = Counts({("aaa", "2026-12-01"): 3, (logged_key(PRIVATE), "2026-12-01"): 1})
    counters = Counts({("aaa", "2026-12-01"): 3, (PRIVATE, "2026-12-01"): 2, ("bbb", "2026-12-01"): 1})
    assert reconcile(lake, counters, "2026-12-01", "2026-12-01") == sorted(
        [Difference("bbb", "2026-12-01", 0, 1), Difference(logged_key(PRIVATE), "2026-12-01", 1, 2)]
    )
    assert lake.asked == counters.asked == [("2026-12-01", "2026-12-01")]


def cell_rows(*rows: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"Data": [{"VarCharValue": value} for value in row]} for row in rows]


class FakeAthena:
    """Athena's three calls: a query that runs for `running` polls, then ends in `final`; its
    result in pages (the first row of the first page is the header, as Athena's)."""

    def __init__(self, pages: list[list[dict[str, Any]]], running: int = 2, final: str = "SUCCEEDED") -> None:
        self.pages = pages
        self.running = running
        self.final = final
        self.started: list[dict[str, Any]] = []
        self.polls = 0

    def start_query_execution(self, **request: Any) -> dict[str, str]:
        self.started.append(request)
        return {"QueryExecutionId": "q-1"}

    def get_query_execution(self, QueryExecutionId: str) -> dict[str, Any]:
        self.polls += 1
        state = "RUNNING" if self.polls <= self.running else self.final
        status: dict[str, Any] = {"State": state}
        if state == "FAILED":
            status["StateChangeReason"] = "Bytes scanned limit was exceeded"
        return {"QueryExecution": {"QueryExecutionId": QueryExecutionId, "Status": status}}

    def get_paginator(self, name: str) -> "FakeAthena":
        assert name == "get_query_results"
        return self

    def paginate(self, QueryExecutionId: str) -> list[dict[str, Any]]:
        return [{"ResultSet": {"Rows": page}} for page in self.pages]


def adapter(client: Any, clock: list[float] | None = None) -> AthenaLakeLinkDays:
    now = clock if clock is not None else [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    return AthenaLakeLinkDays("shortlink-click-lake", "shortlink_click_lake", client, clock=lambda: now[0], sleep=sleep)


def test_athena_runs_the_named_query_in_the_workgroup_waits_and_reads_every_page():
    pages = [
        cell_rows(("link", "day", "clicks"), ("aaa", "2026-12-01", "3")),
        cell_rows(("bbb", "2026-12-01", "12")),
    ]
    client = FakeAthena(pages, running=2)
    found = adapter(client).clicks_per_link_day("2026-12-01", "2026-12-01")
    assert found == {("aaa", "2026-12-01"): 3, ("bbb", "2026-12-01"): 12}
    assert client.started == [
        {
            "QueryString": CLICKS_PER_LINK_DAY_SQL,
            "QueryExecutionContext": {"Database": "shortlink_click_lake"},
            "WorkGroup": "shortlink-click-lake",
            "ExecutionParameters": ["'2026-12-01'", "'2026-12-01'"],
        }
    ]
    assert client.polls == 3


def test_a_failed_query_a_slow_one_and_a_refusal_are_storage_unavailable():
    with pytest.raises(StorageUnavailable, match="failed: Bytes scanned limit"):
        adapter(FakeAthena([], running=0, final="FAILED")).clicks_per_link_day("2026-12-01", "2026-12-01")
    clock = [0.0]
    slow = FakeAthena([], running=10_000)
    with pytest.raises(StorageUnavailable, match="still ran after 600 s"):
        adapter(slow, clock).clicks_per_link_day("2026-12-01", "2026-12-01")
    assert 600 <= clock[0] <= 601

    class Refusing(FakeAthena):
        def start_query_execution(self, **request: Any) -> dict[str, str]:
            raise ClientError({"Error": {"Code": "TooManyRequestsException", "Message": "slow down"}}, "Start")

    with pytest.raises(StorageUnavailable, match="TooManyRequestsException"):
        adapter(Refusing([])).clicks_per_link_day("2026-12-01", "2026-12-01")


@pytest.fixture(scope="module")
def check_module() -> Any:
    handler = load_handler(Path("functions/click_lake_check"), "app.lambda_handler", "unit_click_lake_check")
    return __import__(handler.__module__)


def test_the_schedule_checks_the_day_before_yesterday_and_an_event_names_another(check_module):
    checked_day = check_module.checked_day
    assert checked_day({}, date(2026, 12, 6)) == "2026-12-04"
    assert checked_day({"day": "2026-11-30"}, date(2026, 12, 6)) == "2026-11-30"
    for wrong in (
        "\uff12\uff10\uff12\uff16-11-30",  # fullwidth digits
        "2026-11-31",
        "30.11.2026",
        20261130,
        "2026-11-3",
    ):
        with pytest.raises(ValueError, match="day must be a date as YYYY-MM-DD"):
            checked_day({"day": wrong}, date(2026, 12, 6))
