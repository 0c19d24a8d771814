"""Click counters in the click-stats table, counted exactly once (plain botocore: the counters'
attribute names are data, which pynamodb's fixed models cannot express).

Per link and 10 minutes, one item (`h#2026-11-30T14#3`: 14:30-14:39) holds `clicks`, `bots`, one
number per dimension value (`country#DE`, `device#mobile`, ...), the unique-visitor sketch
`visitors` (a number set, see shortlink.unique_visitors), and its ledger `ids`: a 64-bit digest of
every click it counted. A click's item follows from its time, so it is always offered to the same
item; clicks arrive roughly in time order, so a batch touches about one item per link.

A batch's clicks of one item are counted in one UpdateItem: the `ADD`s of the counters and of
the ledger, on condition that the ledger holds none of these clicks. One item, one atomic write:
a crash at any point loses nothing, and a redelivered click is refused by the ledger, so each
click counts exactly once, without transactions. Ten-minute items keep a ledger far below
DynamoDB's 400 KB item limit (about 20,000 clicks per link in 10 minutes, 33 per second).
"""

import hashlib
from collections import Counter, defaultdict
from datetime import UTC
from typing import Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from botocore.session import get_session

from shortlink.clicks import DIMENSIONS, ClickEvent
from shortlink.errors import StorageUnavailable
from shortlink.unique_visitors import sketch_element

COUNTERS_PREFIX = "h#"
SLOT_MINUTES = 10
# A ledger condition is one `NOT contains` per click; 100 of them stay under DynamoDB's 4 KB.
MAX_CLICKS_PER_WRITE = 100
# How often an item is retried after its ledger refused some clicks (a redelivery raced us).
MAX_LEDGER_RETRIES = 3
CLIENT_CONFIG = Config(connect_timeout=2, read_timeout=10, retries={"max_attempts": 3, "mode": "standard"})


# Dimensions whose values visitors choose (any Referer, any Accept-Language). If their variety
# fills an item, the rest of its clicks are counted under OTHER for them, still exactly once.
OPEN_DIMENSIONS = frozenset({"referrer", "language"})
OTHER = "(other)"


def counter_names(click: ClickEvent, coarse: bool = False) -> list[str]:
    names = ["clicks"]
    for dimension in DIMENSIONS:
        value = OTHER if coarse and dimension in OPEN_DIMENSIONS else getattr(click, dimension)
        names.append(f"{dimension}#{value}")
    if click.bot:
        names.append("bots")
    return names


def ledger_digest(click: ClickEvent) -> str:
    return hashlib.blake2b(click.click_id.encode(), digest_size=8).hexdigest()


def bucket_of(click: ClickEvent) -> str:
    return f"{COUNTERS_PREFIX}{click.hour()}#{click.at.astimezone(UTC).minute // SLOT_MINUTES}"


class DynamoClickStats:
    def __init__(self, table_name: str, client: Any = None) -> None:
        self._table = table_name
        self._client = client

    def _dynamodb(self) -> Any:
        if self._client is None:
            self._client = get_session().create_client("dynamodb", config=CLIENT_CONFIG)
        return self._client

    # --- counting ---------------------------------------------------------------------------

    def add(self, code: str, hour: str, clicks: list[ClickEvent]) -> int:
        """One conditional UpdateItem per 10-minute item the clicks fall in (one click once,
        however often it is offered). Raises StorageUnavailable if any item was not written;
        those that were keep their ledger, so offering all the clicks again is safe."""
        slots: dict[str, dict[str, ClickEvent]] = defaultdict(dict)
        for click in clicks:
            slots[bucket_of(click)][ledger_digest(click)] = click
        counted = 0
        for bucket, pending in sorted(slots.items()):
            digests = list(pending)
            for start in range(0, len(digests), MAX_CLICKS_PER_WRITE):
                counted += self._add_to_item(
                    code, bucket, {d: pending[d] for d in digests[start : start + MAX_CLICKS_PER_WRITE]}
                )
        return counted

    def _add_to_item(self, code: str, bucket: str, pending: dict[str, ClickEvent], coarse: bool = False) -> int:
        for _ in range(MAX_LEDGER_RETRIES):
            if not pending:
                return 0
            try:
                self._dynamodb().update_item(**self._update(code, bucket, pending, coarse))
            except ClientError as error:
                reason = error.response.get("Error", {})
                if not coarse and "maximum allowed size" in reason.get("Message", ""):
                    # Thousands of made-up referrers (a bot, say) must not make real clicks fail.
                    return self._add_to_item(code, bucket, pending, coarse=True)
                if reason.get("Code") != "ConditionalCheckFailedException":
                    raise StorageUnavailable(f"click counters not written: {error}") from error
                counted = self._ledger(code, bucket)
                pending = {digest: click for digest, click in pending.items() if digest not in counted}
                continue
            except BotoCoreError as error:
                raise StorageUnavailable(f"click counters not written: {error}") from error
            return len(pending)
        raise StorageUnavailable(f"clicks in {bucket} kept racing another writer")  # no code: it may be private

    def _update(self, code: str, bucket: str, pending: dict[str, ClickEvent], coarse: bool) -> dict[str, Any]:
        counts = Counter(name for click in pending.values() for name in counter_names(click, coarse))
        names: dict[str, str] = {"#ids": "ids"}
        values: dict[str, Any] = {":ids": {"SS": list(pending)}}
        actions = ["#ids :ids"]
        for index, (name, count) in enumerate(sorted(counts.items())):
            names[f"#n{index}"] = name
            values[f":n{index}"] = {"N": str(count)}
            actions.append(f"#n{index} :n{index}")
        visitors = {sketch_element(click.visitor) for click in pending.values() if click.visitor and not click.bot}
        if visitors:
            names["#visitors"] = "visitors"
            values[":visitors"] = {"NS": [str(element) for element in sorted(visitors)]}
            actions.append("#visitors :visitors")
        conditions = []
        for index, digest in enumerate(pending):
            values[f":d{index}"] = {"S": digest}
            conditions.append(f"NOT contains(#ids, :d{index})")
        return {
            "TableName": self._table,
            "Key": {"code": {"S": code}, "bucket": {"S": bucket}},
            "UpdateExpression": "ADD " + ", ".join(actions),
            "ConditionExpression": " AND ".join(conditions),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }

    def _ledger(self, code: str, bucket: str) -> set[str]:
        try:
            item = (
                self._dynamodb()
                .get_item(
                    TableName=self._table,
                    Key={"code": {"S": code}, "bucket": {"S": bucket}},
                    ConsistentRead=True,
                    ProjectionExpression="#ids",
                    ExpressionAttributeNames={"#ids": "ids"},
                )
                .get("Item", {})
            )
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"click ledger not read: {error}") from error
        return set(item.get("ids", {}).get("SS", []))

    # --- reading ----------------------------------------------------------------------------

    def hours(self, code: str, first_hour: str, last_hour: str) -> list[dict[str, Any]]:
        """The counters of a link from `first_hour` to `last_hour` (inclusive), one entry per
        stored 10-minute item, oldest first: {"hour": ..., "clicks": n, ..., "visitors": sketch}."""
        found: list[dict[str, Any]] = []
        query: dict[str, Any] = {
            "TableName": self._table,
            # `bucket` is a DynamoDB reserved word: every name is aliased.
            "KeyConditionExpression": "#code = :code AND #bucket BETWEEN :first AND :last",
            "ExpressionAttributeNames": {"#code": "code", "#bucket": "bucket"},
            "ExpressionAttributeValues": {
                ":code": {"S": code},
                ":first": {"S": COUNTERS_PREFIX + first_hour},
                ":last": {"S": COUNTERS_PREFIX + last_hour + "~"},  # '~' sorts after every slot
            },
        }
        try:
            while True:
                page = self._dynamodb().query(**query)
                found.extend(_counters_of(item) for item in page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    return found
                query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"click counters not read: {error}") from error


def _counters_of(item: dict[str, Any]) -> dict[str, Any]:
    hour = item["bucket"]["S"].removeprefix(COUNTERS_PREFIX).split("#", 1)[0]
    counters: dict[str, Any] = {"hour": hour}
    for name, value in item.items():
        if "N" in value:
            counters[name] = int(value["N"])
    counters["visitors"] = {int(element) for element in item.get("visitors", {}).get("NS", [])}
    return counters
