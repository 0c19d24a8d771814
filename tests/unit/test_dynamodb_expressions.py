"""Every DynamoDB expression names its attributes through placeholders (`#name`).

moto accepts a bare attribute name even when it is a reserved word (`bucket`, `name`, `value`...);
DynamoDB refuses it with a ValidationException. Two guards: every expression literal in the code,
and every expression the adapters actually send (pynamodb's and the hand-written ones alike).
The e2e run against dynalite (tests/e2e/conftest.py) checks the same against a store that refuses.
"""

import ast
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from botocore.client import BaseClient

from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget
from shortlink.adapters.dynamodb.click_counter import DynamoClickCounter
from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader
from shortlink.adapters.dynamodb.id_counter import DynamoCounterStore
from shortlink.adapters.dynamodb.link_reader import DynamoLinkReader
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.clicks.tally import parts_per_link_day
from shortlink.links.model import Link, LinkChanges

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("layers", "functions", "tools", "tests")
# The expression grammar's own words: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.html
KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN", "SET", "ADD", "REMOVE", "DELETE"})
FUNCTIONS = frozenset(
    {"attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains", "size"}
    | {"if_not_exists", "list_append"}
)
TOKEN = re.compile(r"[#:]?[A-Za-z_][A-Za-z0-9_]*")
NOW = datetime(2026, 12, 1, 14, 35, tzinfo=UTC)


def unaliased_names(expression: str) -> list[str]:
    """The attribute names an expression (or a fragment of one) spells out instead of aliasing."""
    found = []
    for match in TOKEN.finditer(expression):
        token = match.group()
        if token[0] in "#:" or token.upper() in KEYWORDS:
            continue
        if token in FUNCTIONS and expression[match.end() :].lstrip().startswith("("):
            continue
        found.append(token)
    return found


def test_the_check_tells_aliased_names_from_bare_ones():
    assert unaliased_names("code = :code AND bucket BETWEEN :first AND :last") == ["code", "bucket"]
    assert unaliased_names("#code = :code AND #bucket BETWEEN :first AND :last") == []
    assert unaliased_names("SET #u = if_not_exists(#u, :zero) + :one REMOVE #t") == []
    assert unaliased_names("attribute_exists(max_clicks) AND #a.b[0] < :n") == ["max_clicks", "b"]
    assert unaliased_names("NOT contains(#ids, :d0) AND size(#ids) > :n") == []
    assert unaliased_names("ids") == ["ids"]


def _expression_values(tree: ast.AST) -> Iterator[tuple[int, ast.expr]]:
    """The value of every `...Expression=` keyword and `"...Expression":` dict entry."""
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg and node.arg.endswith("Expression"):
            yield node.value.lineno, node.value
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.endswith("Expression"):
                    yield value.lineno, value


def _string_fragments(node: ast.expr) -> Iterator[str]:
    for part in ast.walk(node):
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            yield part.value


def test_every_expression_written_in_the_code_aliases_its_names():
    offenders = []
    checked = 0
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, value in _expression_values(ast.parse(path.read_text(), str(path))):
                for fragment in _string_fragments(value):
                    checked += 1
                    if unaliased_names(fragment):
                        offenders.append(f"{path.relative_to(ROOT)}:{line}: {fragment!r}")
    assert not offenders, "attribute names not aliased (use ExpressionAttributeNames):\n" + "\n".join(offenders)
    assert checked >= 5  # the hand-written expressions of the adapters are among them


# What the store answers each operation in the recording below: enough for every adapter to
# take its normal path (one item with the attributes of every model).
ANY_ITEM = {
    "code": {"S": "abc1234"},
    "url": {"S": "https://example.com/"},
    "owner": {"S": "owner-1"},
    "created_at": {"S": "2026-12-01T00:00:00.000000+0000"},
    "name": {"S": "counter"},
    "value": {"N": "1000"},
    "key_hash": {"S": "hash"},
    "key_id": {"S": "key-1"},
}
ANSWERS: dict[str, dict[str, Any]] = {
    "UpdateItem": {"Attributes": ANY_ITEM},
    "Scan": {"Items": [ANY_ITEM], "Count": 1, "ScannedCount": 1},
    "Query": {"Items": [], "Count": 0, "ScannedCount": 0},
}


@pytest.fixture
def sent_requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Every DynamoDB request the adapters make, answered here instead of by a store."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    # Credentials given, so botocore looks none up: nothing is signed or sent.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "unused")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "unused")
    sent: list[tuple[str, dict[str, Any]]] = []

    def answer(client: BaseClient, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        sent.append((operation, params))
        return ANSWERS.get(operation, {})

    with mock.patch.object(BaseClient, "_make_api_call", autospec=True, side_effect=answer):
        yield sent


def _use_every_adapter() -> None:
    link = Link(code="abc1234", url="https://example.com/", owner="owner-1", created_at=NOW, expires_at=NOW)
    links = DynamoLinkRepository("Links")
    links.add(link)
    links.add_with_slug(link, "abc1234")
    links.get("abc1234")
    links.update("abc1234", "owner-1", LinkChanges(url="https://example.com/b", expires_at=NOW, tags=("a",)))
    links.update("abc1234", "owner-1", LinkChanges(cleared=frozenset(LinkChanges.CLEARABLE)))
    links.set_deleted("abc1234", "owner-1", NOW)
    links.set_deleted("abc1234", "owner-1", None)
    links.list_for_owner("owner-1", 10, None, "a")
    links.list_for_owner("owner-1", 10, None, "a", domain="go.example")  # `domain` is a reserved word
    links.list_for_owner("owner-1", 10, None, None, "campaign", domain="")
    links.add(Link(code="abc1234", url="https://example.com/", owner="owner-1", created_at=NOW, domain="go.example"))
    DynamoCounterStore("Counters").reserve(1000)
    DynamoWindowCounter("Counters").take("create#key-1", 1, 60, 2_000_000_000)
    keys = DynamoApiKeyStore("ApiKeys")
    keys.find_by_hash("hash")
    keys.add("hash", "key-1", "me")
    keys.mark_used("hash", NOW.date())
    keys.list_keys()
    keys.list_keys(owner="key-1")
    keys.revoke("key-1")
    keys.revoke("key-1", owner="key-1")
    DynamoLinkReader("Links").get("abc1234")
    DynamoClickBudget("Links").take("abc1234")
    counter = DynamoClickCounter("ClickStats")
    cool = ClickPack("p-1", (ClickEvent("c-1", "abc1234", NOW, country="DE", visitor="ab" * 16),))
    hot = ClickPack("p-2", tuple(ClickEvent(f"h-{i}", "abc1234", NOW, visitor=f"{i:032x}") for i in range(100)))
    for pack in (cool, hot):  # a cool day's one UpdateItem, then a hot day's transaction and sketches
        for (code, day), parts in parts_per_link_day([pack]).items():
            counter.count(code, day, list(parts.values()))
    DynamoClickStatsReader("ClickStats").days("abc1234", "2026-12-01", "2026-12-01", hourly=True)


def _expressions(request: Any) -> Iterator[str]:
    """Every expression string anywhere in a request (transactions nest theirs)."""
    if isinstance(request, dict):
        for key, value in request.items():
            if key.endswith("Expression") and isinstance(value, str):
                yield value
            else:
                yield from _expressions(value)
    elif isinstance(request, list):
        for value in request:
            yield from _expressions(value)


def test_every_expression_the_adapters_send_aliases_its_names(sent_requests):
    _use_every_adapter()
    offenders = []
    expressions = 0
    for operation, params in sent_requests:
        for expression in _expressions(params):
            expressions += 1
            if unaliased_names(expression):
                offenders.append(f"{operation}: {expression!r} names {unaliased_names(expression)}")
    assert not offenders, "\n".join(offenders)
    operations = {operation for operation, _ in sent_requests}
    assert {"PutItem", "TransactWriteItems", "UpdateItem", "Query", "Scan"} <= operations
    assert expressions >= 15
