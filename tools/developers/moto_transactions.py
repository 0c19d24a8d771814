"""moto's TransactWriteItems, at a cost per item instead of per table.

moto backs up a whole table (a deep copy) for every item of a transaction, to roll back if it
is cancelled: a transaction costs time in proportion to the table, which makes any test or
benchmark that writes transactions into a filled table crawl. `install()` keeps its behaviour
(all or nothing, the same cancellation reasons) and backs up only the items the transaction
names (and drops the stream records of a cancelled one). For the test double only: nothing in
the Lambda functions imports this.

moto's Query also reads the whole table, sorted, for every page (`Table.all_items`), to keep the
one partition asked for: a query costs time in proportion to the table, not to the partition it
reads as in DynamoDB, and a stats read among a year of clicks took seconds. `install()` hands a
query of the table's own key only that partition's items in the key condition's range (moto
still sorts and pages them): moto weighed every item of the partition against the page's 1 MB
before comparing its key, which made a month's read of a busy link's year cost as much as the
year's.

moto checks an update expression's paths and clause counts at every node of its tree, each check
walking that node's whole subtree: cubic in the expression's actions (an update of a busy day's
~170 counters cost moto a second). A subtree's actions are all the expression's, so `install()`
checks at the root alone, which refuses the same expressions.

moto writes every response through a generic serializer that walks the API's shapes member by
member in Python: about a second for a Query page of a busy link's counters. `install()` writes
the item operations' results (items are already DynamoDB JSON) with `json` instead: the same
document (a test compares them).

moto's expression parser also recurses once per action: an update of ~170 counters (an
account's day with its links and a busy day's dimensions; DynamoDB takes expressions up to 4 KB)
passes Python's default recursion limit, so `install()` and the local stack raise it.

`install()` also parses moto's expressions once per text (tools/developers/moto_expressions).
"""

import base64
import copy
import json
import sys
import threading
from types import SimpleNamespace
from typing import Any

from moto.dynamodb import models
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoResult

from tools.developers import moto_expressions

_installed = False
# Frames enough for an expression of DynamoDB's largest size (about 370 actions).
RECURSION_LIMIT = 20_000


def allow_long_expressions() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    allow_long_expressions()
    real_deepcopy = copy.deepcopy
    # The module's own `copy.deepcopy` leaves tables alone (items are still copied as before).
    vars(models)["copy"] = SimpleNamespace(
        deepcopy=lambda obj, memo=None: obj if isinstance(obj, Table) else real_deepcopy(obj, memo),
        copy=copy.copy,
    )
    original = models.DynamoDBBackend.transact_write_items

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        saved = []
        for action in transact_items:
            operation: dict[str, Any] = next(iter(action.values()))
            table = self.tables.get(operation.get("TableName"))
            if table is None:
                continue
            key_names = (table.hash_key_attr, table.range_key_attr)
            key = operation.get("Key") or {name: operation["Item"][name] for name in key_names if name}
            current = self.get_item(table.name, key)
            saved.append((table.name, key, current.to_json()["Attributes"] if current else None))
        streams = {name: len(self.tables[name].stream_shard.items) for name, _, _ in saved if _streamed(self, name)}
        try:
            original(self, transact_items)
        except Exception:
            for table_name, item_key, before in saved:
                if before is None:
                    self.delete_item(table_name, item_key)
                else:
                    self.put_item(table_name, before)
            for table_name, mark in streams.items():
                _unrecord(
                    self.tables[table_name].stream_shard, mark, [key for name, key, _ in saved if name == table_name]
                )
            raise

    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _query_by_partition()
    _check_update_expressions_at_their_root()
    _item_results_as_json()
    moto_expressions.install()


def _query_by_partition() -> None:
    """A query of a table's own key (no index) reads only its partition's items."""
    querying = threading.local()  # the server answers requests on threads of its own
    real_query, real_all_items = Table.query, Table.all_items

    def query(self: Table, hash_key: Any, range_comparison: Any, range_objs: Any, *args: Any, **kwargs: Any) -> Any:
        # moto's backend names the index as the 8th argument (5th after the range condition)
        index_name = args[4] if len(args) > 4 else kwargs.get("index_name")
        if index_name is not None or hash_key is None or not self.range_key_attr:
            return real_query(self, hash_key, range_comparison, range_objs, *args, **kwargs)
        querying.partition = (self, hash_key, range_comparison, range_objs)
        try:
            return real_query(self, hash_key, range_comparison, range_objs, *args, **kwargs)
        finally:
            querying.partition = None

    def all_items(self: Table) -> Any:
        table, hash_key, comparison, operands = getattr(querying, "partition", None) or (None, None, None, None)
        if table is not self:
            return real_all_items(self)
        items = list(self.items.get(hash_key, {}).values())
        if comparison is None:
            return items
        # The key condition's range first, as DynamoDB reads only it (moto would weigh every item
        # of the partition against the page's 1 MB before comparing its key, then skip it).
        return [item for item in items if item.range_key.compare(comparison, operands)]

    Table.query = query  # type: ignore[method-assign]
    Table.all_items = all_items  # type: ignore[method-assign]


def _check_update_expressions_at_their_root() -> None:
    from moto.dynamodb.parsing import validators
    from moto.dynamodb.parsing.ast_nodes import UpdateExpression  # type: ignore[attr-defined]

    for validator, name in (
        (validators.OverlappingPathsValidator, "check_for_overlapping_paths"),
        (validators.ActionCountValidator, "verify_action_counts"),
    ):
        check = getattr(validator, name)

        def at_root(self: Any, node: Any, check: Any = check) -> Any:
            return node if isinstance(node.parent, UpdateExpression) else check(self, node)

        setattr(validator, name, at_root)


# Results made of items, keys, counts and consumed capacity: nothing the shapes would rename or
# format (no timestamps, blobs in base64).
ITEM_OPERATIONS = frozenset(
    {"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem"}
    | {"TransactGetItems", "TransactWriteItems"}
)


generic_execute_result = DynamoResult.execute_result  # moto's own, for the rest and the test


def _item_results_as_json() -> None:
    def execute_result(self: Any, context: Any) -> Any:
        if context.operation_model.name not in ITEM_OPERATIONS or not isinstance(self.result, dict):
            return generic_execute_result(self, context)
        # The members of the operation's output, as the serializer keeps them (moto adds others)
        shape = context.operation_model.output_shape.members
        members = {name: value for name, value in self.result.items() if value is not None and name in shape}
        body = json.dumps(members, separators=(",", ":"), default=_blob)
        return 200, {"Content-Type": "application/x-amz-json-1.0"}, body

    DynamoResult.execute_result = execute_result  # type: ignore[method-assign]


def _blob(value: Any) -> str:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not an item's value")


def _streamed(backend: Any, table_name: str) -> bool:
    return backend.tables[table_name].stream_shard is not None


def _unrecord(shard: Any, mark: int, keys: list[dict[str, Any]]) -> None:
    """Drop the stream records a cancelled transaction left (its writes and their undoing):
    DynamoDB streams only what a transaction commits."""
    shard.items[mark:] = [record for record in shard.items[mark:] if record.record["dynamodb"]["Keys"] not in keys]


def serve(argv: list[str]) -> None:
    """moto's server with transactions at their per-item cost."""
    from moto.server import main

    install()
    main(argv)


if __name__ == "__main__":
    import sys

    serve(sys.argv[1:])
