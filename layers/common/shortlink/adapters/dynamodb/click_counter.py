"""Ingest's click counter: counters in the click-stats table, each pack part counted exactly once
(plain botocore: the counters' attribute names are data, which pynamodb's fixed models cannot
express).

Per link, UTC day and region, one counters item (`c#2026-11-30#us-east-1`) holds the day's
totals, its hour-by-hour series and its dimension counts (shortlink.clicks.tally). Its ledger
depends on how busy the day is:

- **cool** (the day's first COOL_CLICKS clicks): the counters item holds the ledger itself,
  `packs` (8-byte pack digests), and the visitor sketch elements per hour. A batch's parts are
  counted with one conditional UpdateItem: the `ADD`s on condition that the item is not hot,
  has fewer than COOL_CLICKS clicks, and holds none of these packs. One item, one atomic write.
- **hot** (from then on): the packs are recorded in ledger items of LEDGER_WINDOW_SECONDS of
  click time (`l#2026-11-30#us-east-1#178934562` under the code's LEDGER_PARTITION, kept
  LEDGER_DAYS by TTL) and the counters are
  added in the same TransactWriteItems, on condition that neither the counters item's frozen
  ledger nor the window's holds any of the packs; the first hot write marks the item `hot`, so
  no cool write can follow. Visitors go to registers items (adapters/dynamodb/visitor_sketches.py).

A pack is thus recorded either in the counters item (before it turned hot) or in the window
that its own clicks name (after), and every write checks both: a redelivery is refused
wherever its pack was recorded. Each write also sets the link's `owner` and `tags` as its
latest click names them, on the day item and on the visitor sketches: the table's stream
carries them to the account's and tags' days (functions/account_stats). Counters of two
regions never share an item (the region is in every key; readers sum), as DynamoDB global
tables resolve concurrent writes by last writer wins.
"""

import time
from collections.abc import Iterable, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.dynamodb.click_stats_table import (
    COUNTERS,
    DAY_SKETCH,
    MAX_RACES,
    ClickStatsTable,
    Expression,
    day_key,
    hour_sketch_key,
    hours_partition,
    ledger_key,
    ledger_partition,
)
from shortlink.adapters.dynamodb.visitor_sketches import DynamoVisitorSketches
from shortlink.clicks.events import ClickEvent
from shortlink.clicks.orphans import MAX_ORPHAN_CODES, ORPHANS, STACK_ORPHANS, attempted_codes, orphan_increments
from shortlink.clicks.tally import PackPart, counter_increments, visitor_elements
from shortlink.clicks.unique_visitors import REGISTERS, merge_registers, registers_of
from shortlink.errors import StorageUnavailable

# A day's counters item keeps its own ledger for this many clicks; cool writes carry at most
# COOL_WRITE_CLICKS, so its inline ledger and sketch stay under ~130 entries (about 1 KB each).
COOL_CLICKS = 32
COOL_WRITE_CLICKS = 64
# Each pack adds one `NOT contains` to a condition: 64 of them stay well under DynamoDB's 4 KB.
MAX_PACKS_PER_WRITE = 64
# How long a hot day's ledger remembers a pack after recording it: past the queue's retention
# (4 days) and the dead-letter queue's (14 days), so that a redrive is still recognised.
LEDGER_DAYS = 21


def _clicks(parts: Iterable[PackPart]) -> int:
    return sum(len(part.clicks) for part in parts)


def _error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _too_big(message: str) -> bool:
    return "maximum allowed size" in message


def owner_labels(clicks: Sequence[ClickEvent]) -> dict[str, Any]:
    """The link's `owner` and `tags` attributes, as the latest owned click names them (none
    for clicks without an owner)."""
    owned = [click for click in clicks if click.owner]
    if not owned:
        return {}
    latest = max(owned, key=lambda click: click.at)
    return {"owner": {"S": latest.owner}, "tags": {"L": [{"S": tag} for tag in latest.tags]}}


def _owner_actions(expression: Expression, clicks: Sequence[ClickEvent]) -> list[str]:
    """The `SET` actions of the link's owner and tags (see owner_labels)."""
    return [
        f"{expression.name(name)} = {expression.value(name, value)}" for name, value in owner_labels(clicks).items()
    ]


def _recorded(item: Any) -> set[bytes]:
    return {bytes(digest) for digest in item.get("packs", {}).get("BS", [])}


def _cancelled_item(error: ClientError) -> dict[str, Any]:
    """The counters item (the transaction's first update) as a cancelled transaction found it."""
    reasons: list[dict[str, Any]] = error.response.get("CancellationReasons", [])  # type: ignore[assignment]
    return reasons[0].get("Item", {}) if reasons else {}


def _visits(parts: Iterable[PackPart]) -> int:
    return sum(part.visits for part in parts)


def _turned_hot(item: Any) -> bool:
    counts = (int(item.get(name, {}).get("N", "0")) for name in ("clicks", ORPHANS))
    return "hot" in item or any(count >= COOL_CLICKS for count in counts)


class DynamoClickCounter(ClickStatsTable):
    """Ingest's writes: each pack part of a link's day counted exactly once."""

    def __init__(self, table_name: str, client: Any = None) -> None:
        super().__init__(table_name, client)
        self._sketches: DynamoVisitorSketches | None = None
        self._hot: set[tuple[str, str]] = set()  # (code, day) items this environment saw hot
        self._orphan_codes: dict[str, set[str]] = {}  # day -> unknown codes its stack item counts

    def _visitor_sketches(self) -> DynamoVisitorSketches:
        if self._sketches is None:
            self._sketches = DynamoVisitorSketches(self._table, self._dynamodb())
        return self._sketches

    def is_hot(self, code: str, day: str) -> bool:
        """Whether this environment has counted the link's day on the hot path."""
        return (code, day) in self._hot

    def count(self, code: str, day: str, parts: Sequence[PackPart]) -> int:
        """Count these parts of one link's day, each exactly once however often it is offered.
        Returns how many clicks were new. Raises StorageUnavailable if they could not all be
        written; what was written stays recorded, so offering all of them again is safe."""
        pending = {part.digest: part for part in parts}
        counted = 0
        small = _visits(pending.values()) <= COOL_WRITE_CLICKS and len(pending) <= MAX_PACKS_PER_WRITE
        if (code, day) not in self._hot and small:
            counted, pending = self._count_cool(code, day, pending)
            if not pending:
                return counted
        self._hot.add((code, day))
        ordered = sorted(pending.values(), key=lambda part: part.ledger_window)
        for start in range(0, len(ordered), MAX_PACKS_PER_WRITE):
            chunk = ordered[start : start + MAX_PACKS_PER_WRITE]
            counted += self._count_hot(code, day, {part.digest: part for part in chunk})
        # Every offered click, new or not: a sketch only rises, and a crash may have come
        # between a pack's counters and its visitors.
        self._raise_sketches(code, day, parts)
        return counted

    def _count_cool(self, code: str, day: str, pending: dict[bytes, PackPart]) -> tuple[int, dict[bytes, PackPart]]:
        """Counted clicks, and the parts left for the hot path (the item turned out hot)."""
        coarse = False
        for _ in range(MAX_RACES):
            try:
                self._dynamodb().update_item(**self._cool_update(code, day, pending, coarse))
                return _clicks(pending.values()), {}
            except ClientError as error:
                if not coarse and _too_big(error.response.get("Error", {}).get("Message", "")):
                    coarse = True  # thousands of made-up referrers must not make real clicks fail
                    continue
                if _error_code(error) == "TransactionConflictException":
                    continue  # a hot write of this item was in flight
                if _error_code(error) != "ConditionalCheckFailedException":
                    raise StorageUnavailable(f"click counters not written: {error}") from error
                response: dict[str, Any] = dict(error.response)
                item = response.get("Item", {})
                self._learn_orphan_codes(code, day, item)
                pending = {digest: part for digest, part in pending.items() if digest not in _recorded(item)}
                if _turned_hot(item):
                    return 0, pending
                if not pending:
                    return 0, {}
            except BotoCoreError as error:
                raise StorageUnavailable(f"click counters not written: {error}") from error
        raise StorageUnavailable(f"clicks of a link on {day} kept racing another writer")

    def _cool_update(self, code: str, day: str, pending: dict[bytes, PackPart], coarse: bool) -> dict[str, Any]:
        clicks = [click for part in pending.values() for click in part.clicks]
        expression = Expression()
        packs, total, hot = expression.name("packs"), expression.name("clicks"), expression.name("hot")
        orphans, cool = expression.name(ORPHANS), expression.value("cool", {"N": str(COOL_CLICKS)})
        actions = [f"{packs} {expression.value('packs', {'BS': list(pending)})}"]
        actions += self._increments(expression, clicks, coarse)
        orphan_actions, room = self._orphan_actions(expression, code, day, pending)
        actions += orphan_actions
        owner = _owner_actions(expression, clicks)
        for hour, elements in sorted(visitor_elements(clicks).items()):
            values = {"NS": [str(element) for element in sorted(elements)]}
            actions.append(f"{expression.name(f'visitors@{hour}')} {expression.value(f'v{hour}', values)}")
        condition = (
            f"attribute_not_exists({hot}) AND (attribute_not_exists({total}) OR {total} < {cool}) AND "
            f"(attribute_not_exists({orphans}) OR {orphans} < {cool}) AND {expression.none_recorded(packs, pending)}"
            + room
        )
        return {
            "TableName": self._table,
            "Key": self._key(code, day_key(COUNTERS, day, self._region())),
            "UpdateExpression": "ADD " + ", ".join(actions) + (" SET " + ", ".join(owner) if owner else ""),
            "ConditionExpression": condition,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            **expression.request(),
        }

    def _increments(self, expression: Expression, clicks: list[ClickEvent], coarse: bool) -> list[str]:
        """The counters' `ADD` actions."""
        counts = counter_increments(clicks, coarse)
        return [f"{expression.name(name)} {expression.number(count)}" for name, count in sorted(counts.items())]

    def _orphan_actions(
        self, expression: Expression, code: str, day: str, pending: dict[bytes, PackPart]
    ) -> tuple[list[str], str]:
        """The orphan visits' `ADD` actions, and the condition that keeps the stack's item
        within MAX_ORPHAN_CODES attempted codes (empty when the write adds no code)."""
        orphans = [orphan for part in pending.values() for orphan in part.orphans]
        if not orphans:
            return [], ""
        known = self._orphan_codes.get(day, set()) if code == STACK_ORPHANS else set()
        new = [attempted for attempted, _ in attempted_codes(orphans).most_common() if attempted not in known]
        added = sorted(new[: max(0, MAX_ORPHAN_CODES - len(known))]) if code == STACK_ORPHANS else []
        counts = orphan_increments(orphans, known | set(added))
        actions = [f"{expression.name(name)} {expression.number(count)}" for name, count in sorted(counts.items())]
        if not added:
            return actions, ""
        codes = expression.name("codes")
        actions.append(f"{codes} {expression.value('codes', {'SS': added})}")
        # The item's codes never shrink, so those it holds of `added` only lower its growth.
        room = expression.value("room", {"N": str(MAX_ORPHAN_CODES - len(added))})
        return actions, f" AND (attribute_not_exists({codes}) OR size({codes}) <= {room})"

    def _learn_orphan_codes(self, code: str, day: str, item: dict[str, Any]) -> None:
        if code == STACK_ORPHANS and item:  # a refused write's item: the codes it counts now
            self._orphan_codes[day] = set(item.get("codes", {}).get("SS", []))

    def _count_hot(self, code: str, day: str, pending: dict[bytes, PackPart]) -> int:
        coarse = False
        for _ in range(MAX_RACES):
            if not pending:
                return 0
            request = self._hot_transaction(code, day, pending, coarse)
            try:
                self._dynamodb().transact_write_items(TransactItems=request)
                return _clicks(pending.values())
            except ClientError as error:
                if _error_code(error) != "TransactionCanceledException":
                    if not coarse and _too_big(error.response.get("Error", {}).get("Message", "")):
                        coarse = True
                        continue
                    raise StorageUnavailable(f"click counters not written: {error}") from error
                recorded, coarse = self._cancellation(error, request, coarse)
                self._learn_orphan_codes(code, day, _cancelled_item(error))
                pending = {digest: part for digest, part in pending.items() if digest not in recorded}
            except BotoCoreError as error:
                raise StorageUnavailable(f"click counters not written: {error}") from error
        raise StorageUnavailable(f"clicks of a link on {day} kept racing another writer")

    def _cancellation(self, error: ClientError, request: list[dict[str, Any]], coarse: bool) -> tuple[set[bytes], bool]:
        """The packs a cancelled transaction found recorded, and whether to count coarsely."""
        recorded: set[bytes] = set()
        for reason, action in zip(error.response.get("CancellationReasons", []), request, strict=False):
            code = reason.get("Code", "None")
            if code == "ConditionalCheckFailed":
                recorded |= _recorded(reason["Item"]) if "Item" in reason else self._ledger(action["Update"]["Key"])
            elif code == "TransactionConflict":
                time.sleep(0.05)  # another batch is writing this item: try again shortly
            elif code == "ValidationError" and _too_big(reason.get("Message", "")) and not coarse:
                coarse = True
            elif code != "None":
                raise StorageUnavailable(f"click counters not written: {reason}") from error
        return recorded, coarse

    def _hot_transaction(
        self, code: str, day: str, pending: dict[bytes, PackPart], coarse: bool
    ) -> list[dict[str, Any]]:
        region = self._region()
        clicks = [click for part in pending.values() for click in part.clicks]
        counters = Expression()
        packs, hot = counters.name("packs"), counters.name("hot")
        is_hot = counters.value("hot", {"BOOL": True})
        orphan_actions, room = self._orphan_actions(counters, code, day, pending)
        increments = ", ".join(self._increments(counters, clicks, coarse) + orphan_actions)
        owner = "".join(f", {action}" for action in _owner_actions(counters, clicks))
        request = [
            {
                "Update": {
                    "TableName": self._table,
                    "Key": self._key(code, day_key(COUNTERS, day, region)),
                    "UpdateExpression": f"SET {hot} = {is_hot}{owner} ADD {increments}",
                    "ConditionExpression": counters.none_recorded(packs, pending) + room,
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    **counters.request(),
                }
            }
        ]
        windows: dict[int, list[bytes]] = {}
        for digest, part in pending.items():
            windows.setdefault(part.ledger_window, []).append(digest)
        expires = str(int(time.time()) + LEDGER_DAYS * 86_400)
        for window, digests in sorted(windows.items()):
            ledger = Expression()
            packs, ttl = ledger.name("packs"), ledger.name("expires_at_epoch")
            expiry, recorded = ledger.value("ttl", {"N": expires}), ledger.value("packs", {"BS": digests})
            request.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": self._key(ledger_partition(code), ledger_key(day, region, window)),
                        "UpdateExpression": f"SET {ttl} = {expiry} ADD {packs} {recorded}",
                        "ConditionExpression": ledger.none_recorded(packs, digests),
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                        **ledger.request(),
                    }
                }
            )
        return request

    def _ledger(self, key: dict[str, Any]) -> set[bytes]:
        try:
            item = (
                self._dynamodb()
                .get_item(
                    TableName=self._table,
                    Key=key,
                    ConsistentRead=True,
                    ProjectionExpression="#packs",
                    ExpressionAttributeNames={"#packs": "packs"},
                )
                .get("Item", {})
            )
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"click ledger not read: {error}") from error
        return _recorded(item)

    def _raise_sketches(self, code: str, day: str, parts: Sequence[PackPart]) -> None:
        region = self._region()
        per_hour = visitor_elements(click for part in parts for click in part.clicks)
        if not per_hour:
            return
        sketches = self._visitor_sketches()
        labels = owner_labels([click for part in parts for click in part.clicks])
        whole_day = bytearray(REGISTERS)
        for hour, elements in sorted(per_hour.items()):
            registers = registers_of(elements)
            sketches.raise_to(hours_partition(code), hour_sketch_key(day, hour, region), registers, labels)
            merge_registers(whole_day, registers)
        sketches.raise_to(code, day_key(DAY_SKETCH, day, region), whole_day, labels)
