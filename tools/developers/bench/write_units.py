"""DynamoDB write units as DynamoDB bills them, measured on a botocore client.

An item's size is the sum of its attribute names and values (a number: one byte per two
significant digits, plus one); a write costs one unit per started KB of the larger of the
item's sizes before and after it, at least one; a transactional write costs twice that; a
conditional write that fails still costs (the item as it stands). The meter reads each written
item before and after the call through a second client, which it does not count.
"""

import math
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from shortlink.clicks.account_tally import ACCOUNT_PREFIX

WRITES = ("PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems")


def number_size(text: str) -> int:
    digits = Decimal(text).normalize().as_tuple().digits
    return math.ceil(len(digits) / 2) + 1


def value_size(value: dict[str, Any]) -> int:
    (kind, data), *_ = value.items()
    if kind == "S":
        return len(data.encode())
    if kind == "N":
        return number_size(data)
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(element.encode()) for element in data)
    if kind == "NS":
        return sum(number_size(element) for element in data)
    if kind == "BS":
        return sum(len(element) for element in data)
    if kind == "L":
        return 3 + sum(value_size(element) + 1 for element in data)
    if kind == "M":
        return 3 + sum(len(name.encode()) + value_size(element) + 1 for name, element in data.items())
    raise ValueError(f"unknown DynamoDB type {kind}")


def item_size(item: dict[str, Any]) -> int:
    """Bytes of an item in DynamoDB's low-level form, as DynamoDB counts them."""
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def write_units(before: int, after: int) -> int:
    return max(1, math.ceil(max(before, after) / 1024))


@dataclass
class WriteMeter:
    units: int = 0
    writes: Counter[str] = field(default_factory=Counter)
    largest_item: int = 0
    account_units: int = 0  # of the units, those of accounts' and tags' items (shortlink.clicks.account_tally)

    def add(self, operation: str, units: int, size: int, partition: str = "") -> None:
        self.units += units
        self.writes[operation] += 1
        self.largest_item = max(self.largest_item, size)
        if partition.startswith(ACCOUNT_PREFIX):
            self.account_units += units


@dataclass(frozen=True)
class Target:
    table: str
    key: dict[str, Any]
    factor: int  # 2 in a transaction
    size_before: int


@contextmanager
def metering_writes(client: Any, reader: Any) -> Iterator[WriteMeter]:
    """Meter every write `client` makes; `reader` (another client on the same endpoint) reads
    the items before and after each write."""
    meter = WriteMeter()
    pending: dict[str, list[Target]] = {}

    def current_size(table: str, key: dict[str, Any]) -> int:
        item = reader.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return item_size(item) if item else 0

    def targets(operation: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any], int]]:
        if operation == "TransactWriteItems":
            actions = [next(iter(action.values())) for action in params["TransactItems"]]
            return [(action["TableName"], action["Key"], 2) for action in actions if "Key" in action]
        key = params.get("Key") or {name: params["Item"][name] for name in ("code", "bucket")}
        return [(params["TableName"], key, 1)]

    def before(event_name: str, params: dict[str, Any], **_: Any) -> None:
        operation = event_name.rsplit(".", 1)[-1]
        pending[operation] = [
            Target(table, key, factor, current_size(table, key)) for table, key, factor in targets(operation, params)
        ]

    def after(event_name: str, **_: Any) -> None:
        operation = event_name.rsplit(".", 1)[-1]
        for target in pending.pop(operation, []):
            size_after = current_size(target.table, target.key)
            units = target.factor * write_units(target.size_before, size_after)
            meter.add(operation, units, max(target.size_before, size_after), target.key["code"]["S"])

    hooks: list[tuple[str, Callable[..., None]]] = [
        (f"before-parameter-build.dynamodb.{operation}", before) for operation in WRITES
    ]
    hooks += [(f"after-call.dynamodb.{operation}", after) for operation in WRITES]
    for event, hook in hooks:
        client.meta.events.register(event, hook)
    try:
        yield meter
    finally:
        for event, hook in hooks:
            client.meta.events.unregister(event, hook)
