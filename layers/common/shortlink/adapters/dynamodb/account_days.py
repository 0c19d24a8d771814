"""Accounts' and tags' days in the click-stats table, written by the stream aggregator: per
subject day and batch one conditional UpdateItem of the summed changes, applied exactly once.

Each subject day item keeps, per stream shard, the sequence number of the last change it
applied (`q#<shard digest>`, zero-padded): an update adds only changes past it, on condition
that it is still what was read (`attribute_not_exists(q) OR q < :first`). A batch that Lambda
retries after a crash, or replays, finds its changes applied and skips them; a batch retried
after a partial failure applies only what it had not. Stream records of one shard come in
order (ParallelizationFactor 1), so "past the last applied" is exact. Visitor sketches only
rise, so they need no ledger (adapters/dynamodb/visitor_sketches.py).
"""

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.dynamodb.account_changes import AccountChanges, CounterChange
from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader
from shortlink.adapters.dynamodb.click_stats_table import COUNTERS, MAX_RACES, Expression, day_key
from shortlink.adapters.dynamodb.visitor_sketches import DynamoVisitorSketches
from shortlink.clicks.account_tally import LinkSlots
from shortlink.clicks.tally import DIMENSION_KEYS, OPEN_DIMENSIONS, OTHER, link_counter
from shortlink.errors import StorageUnavailable

APPLIED_PREFIX = "q#"
# Account days whose link counters this environment remembers (a day's first write reads them).
MAX_REMEMBERED_DAYS = 10_000
OPEN_KEYS = frozenset(DIMENSION_KEYS[dimension] for dimension in OPEN_DIMENSIONS)


def applied_attribute(shard: str) -> str:
    """The attribute of a shard's last applied sequence number (shard ids are ~60 characters)."""
    return APPLIED_PREFIX + hashlib.blake2b(shard.encode(), digest_size=6).hexdigest()


def coarsened(counts: Counter[str]) -> Counter[str]:
    """The counts with every open dimension's value under OTHER (an item near its size limit)."""
    coarse: Counter[str] = Counter()
    for name, count in counts.items():
        key, _, _ = name.partition("#")
        coarse[f"{key}#{OTHER}" if key in OPEN_KEYS else name] += count
    return coarse


class DynamoAccountDays:
    def __init__(self, stats: DynamoClickStatsReader) -> None:
        self._stats = stats  # the table, its region, its client and its reading of an item's counters
        self._table = stats.table_name
        self._client = stats.client()
        self._sketches = DynamoVisitorSketches(self._table, self._client)
        self._slots: dict[tuple[str, str], LinkSlots] = {}

    def region(self) -> str:
        return self._stats.region()

    def apply(self, changes: AccountChanges, shard: str) -> int:
        """Apply a batch's changes of one stream shard, each exactly once however often the batch
        comes; the number of subject days written. StorageUnavailable if not all could be: a
        retry of the batch then applies only the rest."""
        written = 0
        for (subject, day), counter_changes in sorted(changes.counters.items()):
            written += self._apply_day(subject, day, shard, counter_changes)
        for (partition, bucket), registers in sorted(changes.sketches.items()):
            self._sketches.raise_to(partition, bucket, registers)
        return written

    def _apply_day(self, subject: str, day: str, shard: str, changes: Sequence[CounterChange]) -> int:
        applied = ""
        coarse = False
        for _ in range(MAX_RACES):
            pending = [change for change in changes if change.sequence > applied]
            if not pending:
                return 0
            request = self._update(subject, day, shard, pending, coarse)
            try:
                self._client.update_item(**request)
                return 1
            except ClientError as error:
                found = error.response.get("Error", {})
                if found.get("Code") == "ConditionalCheckFailedException":
                    response: dict[str, Any] = dict(error.response)
                    item = response.get("Item", {})
                    applied = item.get(applied_attribute(shard), {}).get("S", "")
                    continue
                if not coarse and "maximum allowed size" in str(found.get("Message", "")):
                    coarse = True
                    continue
                raise StorageUnavailable(f"account counters not written: {error}") from error
            except BotoCoreError as error:
                raise StorageUnavailable(f"account counters not written: {error}") from error
        raise StorageUnavailable(f"an account's day {day} kept racing another writer")

    def _update(
        self, subject: str, day: str, shard: str, changes: Sequence[CounterChange], coarse: bool
    ) -> dict[str, Any]:
        slots = self._link_slots(subject, day)
        counts: Counter[str] = Counter()
        for change in changes:
            counts.update(change.counts)
            counts[link_counter(slots.slot(change.code, change.hot))] += change.counts["clicks"]
        counts = (coarsened(counts) if coarse else counts) - Counter()
        expression = Expression()
        last = expression.name(applied_attribute(shard))
        first = expression.value("first", {"S": changes[0].sequence})
        newest = expression.value("newest", {"S": changes[-1].sequence})
        adds = ", ".join(f"{expression.name(name)} {expression.number(n)}" for name, n in sorted(counts.items()))
        return {
            "TableName": self._table,
            "Key": {"code": {"S": subject}, "bucket": {"S": day_key(COUNTERS, day, self._stats.region())}},
            "UpdateExpression": f"SET {last} = {newest} ADD {adds}",
            "ConditionExpression": f"attribute_not_exists({last}) OR {last} < {first}",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            **expression.request(),
        }

    def _link_slots(self, subject: str, day: str) -> LinkSlots:
        slots = self._slots.get((subject, day))
        if slots is None:
            if len(self._slots) >= MAX_REMEMBERED_DAYS:
                self._slots.clear()
            slots = self._slots[(subject, day)] = LinkSlots(self._stats.counter_names(subject, day))
        return slots
