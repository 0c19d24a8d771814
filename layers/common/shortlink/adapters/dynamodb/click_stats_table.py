"""The click-stats table's keys, its expressions and its access through a plain botocore client,
shared by the exactly-once click counter (click_counter.py), the stats reader
(click_stats_reader.py) and the account days (account_days.py, account_changes.py).

Per link, UTC day and region, one counters item (`c#2026-11-30#us-east-1`) holds the day's
totals, its hour-by-hour series and its dimension counts; visitor sketches of a day (`s#`) and
of its hours (`t#`, in the link's hours partition) and, for hot days, ledger windows (`l#`, in
its ledger partition) sit beside it.
"""

from collections.abc import Iterable
from typing import Any

from shortlink.adapters.botocore_clients import botocore_client

COUNTERS, DAY_SKETCH, HOUR_SKETCH, LEDGER = "c#", "s#", "t#", "l#"
# Hour sketches and ledger windows live in partitions of their own, the link's code with a
# suffix no code can have (codes are [A-Za-z0-9_-]): a link's partition then holds only its day
# items, and a stats Query never walks past hours or ledgers (moto's walks the whole partition).
HOURS_PARTITION, LEDGER_PARTITION = "#hours", "#ledger"
# How often a conditional write that raced another is tried again before it gives up.
MAX_RACES = 5
# A year of stats is read in a few large pages: more time per read than a redirect gives.
STATS_READ_TIMEOUT_SECONDS = 10


def day_key(kind: str, day: str, region: str) -> str:
    return f"{kind}{day}#{region}"


def hours_partition(code: str) -> str:
    return code + HOURS_PARTITION


def ledger_partition(code: str) -> str:
    return code + LEDGER_PARTITION


def hour_sketch_key(day: str, hour: str, region: str) -> str:
    return f"{HOUR_SKETCH}{day}T{hour}#{region}"


def ledger_key(day: str, region: str, window: int) -> str:
    return f"{LEDGER}{day}#{region}#{window}"


class Expression:
    """Placeholders for one expression: every attribute name aliased, equal values shared."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self._aliases: dict[str, str] = {}

    def name(self, attribute: str) -> str:
        if attribute not in self._aliases:
            self._aliases[attribute] = f"#a{len(self.names):x}"
            self.names[self._aliases[attribute]] = attribute
        return self._aliases[attribute]

    def value(self, key: str, value: Any) -> str:
        placeholder = f":{key}"
        self.values[placeholder] = value
        return placeholder

    def number(self, number: int) -> str:
        return self.value(f"n{number}", {"N": str(number)})

    def none_recorded(self, packs: str, digests: Iterable[bytes]) -> str:
        return " AND ".join(
            f"NOT contains({packs}, {self.value(f'd{index}', {'B': digest})})" for index, digest in enumerate(digests)
        )

    def request(self) -> dict[str, Any]:
        return {"ExpressionAttributeNames": self.names, "ExpressionAttributeValues": self.values}


class ClickStatsTable:
    """The table and its one botocore client, made on first use."""

    def __init__(self, table_name: str, client: Any = None) -> None:
        self._table = table_name
        self._client = client

    def _dynamodb(self) -> Any:
        if self._client is None:
            self._client = botocore_client("dynamodb", STATS_READ_TIMEOUT_SECONDS)
        return self._client

    def _region(self) -> str:
        return str(self._dynamodb().meta.region_name)

    @property
    def table_name(self) -> str:
        return self._table

    def region(self) -> str:
        """The region this environment counts in (the last part of every day item's key)."""
        return self._region()

    def client(self) -> Any:
        """The botocore client, shared with the account days' writer (one connection pool)."""
        return self._dynamodb()

    def _key(self, code: str, bucket: str) -> dict[str, Any]:
        return {"code": {"S": code}, "bucket": {"S": bucket}}
