"""The stats reader: a link's counters and visitor sketches of a span of days, from the
click-stats table (the API's, the console's and the exports' stats; the account days' reading of
an item's counters)."""

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.dynamodb.click_stats_table import (
    COUNTERS,
    DAY_SKETCH,
    HOUR_SKETCH,
    ClickStatsTable,
    Expression,
    day_key,
    hours_partition,
)
from shortlink.clicks.day_counts import DayCounts
from shortlink.clicks.unique_visitors import registers_of, unpacked_registers
from shortlink.errors import StorageUnavailable

BATCH_GET_KEYS = 100  # DynamoDB's limit per BatchGetItem
MAX_BATCH_ROUNDS = 5  # unprocessed keys (throttling) asked for again at most this often


class DynamoClickStatsReader(ClickStatsTable):
    """DayCountsSource over the click-stats table."""

    def counter_names(self, code: str, day: str) -> set[str]:
        """The counters this region's item of the day holds so far (none before its first click)."""
        key = self._key(code, day_key(COUNTERS, day, self._region()))
        try:
            item = self._dynamodb().get_item(TableName=self._table, Key=key).get("Item", {})
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"click counters not read: {error}") from error
        return {name for name, value in item.items() if "N" in value}

    def day_counters(self, code: str, first_day: str, last_day: str) -> list[DayCounts]:
        """A link's or subject's counters from `first_day` to `last_day` as days() reads them,
        without the visitors (one Query)."""
        found: dict[str, DayCounts] = {}
        for item in self._query(code, COUNTERS, first_day, last_day):
            day = found.setdefault(item["bucket"]["S"][2:12], DayCounts(item["bucket"]["S"][2:12]))
            day.add_counters({name: int(value["N"]) for name, value in item.items() if "N" in value})
        return [found[day] for day in sorted(found)]

    def days(self, code: str, first_day: str, last_day: str, hourly: bool = False) -> list[DayCounts]:
        """A link's counters from `first_day` to `last_day` (inclusive, e.g. 2026-11-30), one
        entry per day with clicks, oldest first. The visitor registers are per hour with
        `hourly`, else per day (each kind read only where asked for)."""
        found: dict[str, DayCounts] = {}
        for item in self._query(code, COUNTERS, first_day, last_day):
            day = found.setdefault(item["bucket"]["S"][2:12], DayCounts(item["bucket"]["S"][2:12]))
            day.add_counters({name: int(value["N"]) for name, value in item.items() if "N" in value})
            for name, value in item.items():
                if name.startswith("visitors@"):
                    registers = registers_of(int(element) for element in value["NS"])
                    day.add_hour_visitors(name.removeprefix("visitors@"), registers)
                    day.add_day_visitors(registers)
        partition, kind = (hours_partition(code), HOUR_SKETCH) if hourly else (code, DAY_SKETCH)
        for item in self._query(partition, kind, first_day, last_day):
            bucket = item["bucket"]["S"]
            day = found.setdefault(bucket[2:12], DayCounts(bucket[2:12]))
            registers = unpacked_registers(item["registers"]["B"])
            if hourly:
                day.add_hour_visitors(bucket[13:15], registers)
            day.add_day_visitors(registers)
        return [found[day] for day in sorted(found)]

    def counters_of(
        self, link_days: Sequence[tuple[str, str]], regions: tuple[str, ...], counters: tuple[str, ...]
    ) -> dict[str, dict[str, DayCounts]]:
        """The named counters of each (link's code, day) pair's day items in each of `regions`,
        summed per day: BatchGetItem of exactly those items, 100 keys a call."""
        expression = Expression()
        projection = ", ".join(expression.name(name) for name in ("code", "bucket", *counters))
        keys = [self._key(code, day_key(COUNTERS, day, region)) for code, day in link_days for region in regions]
        found: dict[str, dict[str, DayCounts]] = {code: {} for code, _ in link_days}
        try:
            for start in range(0, len(keys), BATCH_GET_KEYS):
                pending: dict[str, Any] = {
                    self._table: {"Keys": keys[start : start + BATCH_GET_KEYS], "ProjectionExpression": projection,
                                  "ExpressionAttributeNames": expression.names}
                }  # fmt: skip
                for _ in range(MAX_BATCH_ROUNDS):
                    if not pending:
                        break
                    page = self._dynamodb().batch_get_item(RequestItems=pending)
                    for item in page.get("Responses", {}).get(self._table, []):
                        day = item["bucket"]["S"][2:12]
                        counts = found[item["code"]["S"]].setdefault(day, DayCounts(day))
                        counts.add_counters({name: int(value["N"]) for name, value in item.items() if "N" in value})
                    pending = page.get("UnprocessedKeys") or {}
                if pending:
                    raise StorageUnavailable("click counters not read: DynamoDB kept returning unprocessed keys")
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"click counters not read: {error}") from error
        return found

    def _query(self, code: str, kind: str, first_day: str, last_day: str) -> list[dict[str, Any]]:
        query: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "#code = :code AND #bucket BETWEEN :first AND :last",
            "ExpressionAttributeNames": {"#code": "code", "#bucket": "bucket"},
            "ExpressionAttributeValues": {
                ":code": {"S": code},
                ":first": {"S": kind + first_day},
                ":last": {"S": kind + last_day + "~"},  # '~' sorts after every region and hour
            },
        }
        items: list[dict[str, Any]] = []
        try:
            while True:
                page = self._dynamodb().query(**query)
                items.extend(page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    return items
                query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"click counters not read: {error}") from error
