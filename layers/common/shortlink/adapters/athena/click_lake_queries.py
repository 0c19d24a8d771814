"""Athena adapter of the click lake's reconciliation: the named query clicks-per-link-day run in
the lake's workgroup (its bytes-scanned limit and result location enforced), waited for, and its
rows read page by page. Athena's refusals, a failed or cancelled query and a query still running
at the deadline all become StorageUnavailable: the check fails, and its alarm sees no data."""

import time
from collections.abc import Callable, Iterator
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.clicks.lake_reconciliation import CLICKS_PER_LINK_DAY_SQL, LinkDay
from shortlink.errors import StorageUnavailable

FINISHED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
# A day of a busy stack's rows is a few hundred MB of Parquet: Athena answers in seconds.
WAIT_SECONDS = 600.0
PAUSE_SECONDS = 1.0


class AthenaLakeLinkDays:
    """The lake's side of the reconciliation, queried with Athena."""

    def __init__(
        self,
        workgroup: str,
        database: str,
        client: Any = None,
        *,
        wait_seconds: float = WAIT_SECONDS,
        pause_seconds: float = PAUSE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._workgroup = workgroup
        self._database = database
        self._client = client
        self._wait_seconds = wait_seconds
        self._pause_seconds = pause_seconds
        self._clock = clock
        self._sleep = sleep

    def _athena(self) -> Any:
        if self._client is None:
            from shortlink.adapters.botocore_clients import botocore_client

            self._client = botocore_client("athena")
        return self._client

    def clicks_per_link_day(self, first: str, last: str) -> dict[LinkDay, int]:
        """(link, day) → the lake's clicks, each click id once, of the days from `first` to `last`."""
        try:
            query = self._athena().start_query_execution(
                QueryString=CLICKS_PER_LINK_DAY_SQL,
                QueryExecutionContext={"Database": self._database},
                WorkGroup=self._workgroup,
                ExecutionParameters=[f"'{first}'", f"'{last}'"],  # ISO dates: the caller parsed them
            )["QueryExecutionId"]
            self._wait(query)
            return {(link, day): int(clicks) for link, day, clicks in self._rows(query)}
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"Athena refused the click lake's query: {error}") from error

    def _wait(self, query: str) -> None:
        deadline = self._clock() + self._wait_seconds
        while True:
            status = self._athena().get_query_execution(QueryExecutionId=query)["QueryExecution"]["Status"]
            if status["State"] == "SUCCEEDED":
                return
            if status["State"] in FINISHED:
                reason = status.get("StateChangeReason", "no reason given")
                raise StorageUnavailable(f"the click lake's query {query} {status['State'].lower()}: {reason}")
            if self._clock() >= deadline:
                raise StorageUnavailable(f"the click lake's query {query} still ran after {self._wait_seconds:.0f} s")
            self._sleep(self._pause_seconds)

    def _rows(self, query: str) -> Iterator[tuple[str, str, str]]:
        pages = self._athena().get_paginator("get_query_results").paginate(QueryExecutionId=query)
        header = True
        for page in pages:
            for row in page["ResultSet"]["Rows"]:
                if header:  # the first row of the first page names the columns
                    header = False
                    continue
                link, day, clicks = (cell.get("VarCharValue", "") for cell in row["Data"])
                yield link, day, clicks
