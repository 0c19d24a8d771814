"""The test double at DynamoDB's costs (tools/developers/moto_transactions): a query of a table's own key reads
only its partition's items in the key condition's range and answers as moto's whole-table read did
(order, pages, conditions, indexes); item results written with `json` are the documents moto's
serializer writes; update expressions checked once at their root refuse what moto refused;
expressions parsed once per text (tools/developers/moto_expressions) answer every request as moto parsing
each afresh, a wrong one failing at each try."""

import json
from collections import Counter
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb import comparisons
from moto.dynamodb.models.table import Table
from moto.dynamodb.parsing.tokens import ExpressionTokenizer
from moto.dynamodb.responses import DynamoResult

from tools.developers import moto_expressions, moto_transactions

KEYS: Any = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
ATTRIBUTES: Any = [{"AttributeName": name, "AttributeType": "S"} for name in ("pk", "sk", "g")]


def filled_table():
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(
        TableName="t",
        KeySchema=KEYS,
        AttributeDefinitions=ATTRIBUTES,
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    for partition in ("a", "b", "c"):
        for n in range(30):
            item = {"pk": {"S": partition}, "sk": {"S": f"{n:03d}"}, "g": {"S": "even" if n % 2 == 0 else "odd"}}
            client.put_item(TableName="t", Item=item)
    return client


def pages_of(client, **query):
    pages = client.get_paginator("query").paginate(TableName="t", **query)
    return [[(item["pk"]["S"], item["sk"]["S"]) for item in page["Items"]] for page in pages]


def test_a_query_reads_its_range_of_its_partition_alone_and_pages_and_orders_as_dynamodb(monkeypatch):
    with mock_aws():
        client = filled_table()
        read: list[int] = []
        all_items = Table.all_items

        def counting(self):
            items = all_items(self)
            read.append(len(items))
            return items

        monkeypatch.setattr(Table, "all_items", counting)
        # A partition, backwards, between two sort keys, in pages of 4
        pages = pages_of(
            client,
            KeyConditionExpression="#pk = :pk AND #sk BETWEEN :low AND :high",
            ExpressionAttributeNames={"#pk": "pk", "#sk": "sk"},
            ExpressionAttributeValues={":pk": {"S": "b"}, ":low": {"S": "005"}, ":high": {"S": "014"}},
            ScanIndexForward=False,
            PaginationConfig={"PageSize": 4},
        )
        assert pages == [
            [("b", "014"), ("b", "013"), ("b", "012"), ("b", "011")],
            [("b", "010"), ("b", "009"), ("b", "008"), ("b", "007")],
            [("b", "006"), ("b", "005")],
        ]
        # Each page read the 10 items of its range, not its partition's 30 nor the table's 90
        assert read == [10, 10, 10]
        # Each range operator reads what it names; a partition without a range, all of it
        for condition, expected in (
            ("#sk < :low", [f"{n:03d}" for n in range(5)]),
            ("#sk >= :high", [f"{n:03d}" for n in range(14, 30)]),
            ("begins_with(#sk, :prefix)", [f"{n:03d}" for n in range(10, 20)]),
        ):
            read.clear()
            values = {":low": {"S": "005"}, ":high": {"S": "014"}, ":prefix": {"S": "01"}}
            used = {name: value for name, value in values.items() if name in condition}
            found = pages_of(
                client,
                KeyConditionExpression=f"#pk = :pk AND {condition}",
                ExpressionAttributeNames={"#pk": "pk", "#sk": "sk"},
                ExpressionAttributeValues={":pk": {"S": "c"}, **used},
            )
            assert [sort_key for page in found for _, sort_key in page] == expected
            assert read == [len(expected)]
        read.clear()
        whole = pages_of(
            client,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": "pk"},
            ExpressionAttributeValues={":pk": {"S": "a"}},
        )
        assert [sort_key for page in whole for _, sort_key in page] == [f"{n:03d}" for n in range(30)]
        assert read == [30]
        # An index query still reads every item (an index spans partitions)
        read.clear()
        odd = pages_of(
            client,
            IndexName="byG",
            KeyConditionExpression="#g = :g",
            ExpressionAttributeNames={"#g": "g"},
            ExpressionAttributeValues={":g": {"S": "odd"}},
        )
        assert sorted(pair for page in odd for pair in page) == sorted(
            (partition, f"{n:03d}") for partition in "abc" for n in range(1, 30, 2)
        )
        assert read == [90]
        # A partition nobody wrote: nothing, and no error
        assert pages_of(
            client,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": "pk"},
            ExpressionAttributeValues={":pk": {"S": "z"}},
        ) == [[]]


ITEM: Any = {
    "pk": {"S": "a"},
    "sk": {"S": "1"},
    "b": {"B": b"\x00\xff"},
    "bs": {"BS": [b"\x01", b"\x02"]},
    "n": {"N": "1.5"},
    "ns": {"NS": ["1", "2"]},
    "ss": {"SS": ["x"]},
    "m": {"M": {"k": {"N": "3"}, "l": {"L": [{"NULL": True}, {"BOOL": False}]}}},
}


def test_item_results_written_as_json_are_the_documents_the_serializer_writes(monkeypatch):
    generic = moto_transactions.generic_execute_result
    compared: list[str] = []
    fast = DynamoResult.execute_result

    def both(self, context):
        answer = fast(self, context)
        if context.operation_model.name in moto_transactions.ITEM_OPERATIONS:
            status, headers, body = generic(self, context)
            assert (answer[0], answer[1]["Content-Type"], json.loads(answer[2])) == (
                status,
                headers["Content-Type"],
                json.loads(body),
            )
            compared.append(context.operation_model.name)
        return answer

    monkeypatch.setattr(DynamoResult, "execute_result", both)
    with mock_aws():
        client = filled_table()
        key = {"pk": {"S": "a"}, "sk": {"S": "1"}}
        client.put_item(TableName="t", Item=ITEM, ReturnConsumedCapacity="TOTAL")
        assert client.get_item(TableName="t", Key=key)["Item"]["b"] == {"B": b"\x00\xff"}
        client.get_item(TableName="t", Key={"pk": {"S": "none"}, "sk": {"S": "1"}})
        page = client.query(
            TableName="t",
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": "pk"},
            ExpressionAttributeValues={":pk": {"S": "a"}},
            Limit=2,
            ReturnConsumedCapacity="TOTAL",
        )
        assert page["LastEvaluatedKey"]
        assert page["Count"] == 2
        client.update_item(
            TableName="t",
            Key=key,
            UpdateExpression="ADD #n :one",
            ExpressionAttributeNames={"#n": "n"},
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="ALL_NEW",
        )
        client.scan(TableName="t", Limit=3)
        client.batch_get_item(RequestItems={"t": {"Keys": [key]}})
        client.delete_item(TableName="t", Key=key, ReturnValues="ALL_OLD")
    assert set(compared) >= {"PutItem", "GetItem", "Query", "UpdateItem", "Scan", "BatchGetItem", "DeleteItem"}


def update(client, expression: str, names: dict[str, str]) -> None:
    client.update_item(
        TableName="t",
        Key={"pk": {"S": "a"}, "sk": {"S": "001"}},
        UpdateExpression=expression,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues={":one": {"N": "1"}},
    )


def test_update_expressions_checked_at_their_root_refuse_what_moto_refused():
    with mock_aws():
        client = filled_table()
        names = {f"#c{n}": f"c{n}" for n in range(300)}
        # A long expression is applied whole...
        update(client, "ADD " + ", ".join(f"#c{n} :one" for n in range(300)), names)
        item = client.get_item(TableName="t", Key={"pk": {"S": "a"}, "sk": {"S": "001"}})["Item"]
        assert all(item[f"c{n}"] == {"N": "1"} for n in range(300))
        # ...a path named twice, even deep in it, is refused...
        with pytest.raises(ClientError, match="Two document paths"):
            update(client, "ADD " + ", ".join(f"#c{n} :one" for n in [*range(300), 150]), names)
        # ...and so is a second clause of a kind
        with pytest.raises(ClientError, match="SET"):
            update(client, "SET #c1 = :one SET #c2 = :one", {"#c1": "c1", "#c2": "c2"})


KEY: Any = {"pk": {"S": "a"}, "sk": {"S": "002"}}


def outcome(call, **request) -> Any:
    """What moto answered: the item afterwards, or the refusal (or moto's own error)."""
    try:
        call(**request)
    except ClientError as error:
        reasons = [reason.get("Code") for reason in error.response.get("CancellationReasons", [])]
        return ("refused", error.response["Error"]["Code"], error.response["Error"]["Message"], reasons)
    except Exception as error:  # moto raises some refusals as its own errors
        return ("raised", type(error).__name__, str(error))
    return ("done", call.__self__.get_item(TableName="t", Key=KEY).get("Item"))


def expression_requests(client) -> list[Any]:
    """Each expression twice or more, with other values, names and items; and wrong ones."""
    update, transact = client.update_item, client.transact_write_items

    def updated(expression: str, condition: str, names: dict[str, str], **values: Any) -> Any:
        return outcome(
            update,
            TableName="t",
            Key=KEY,
            UpdateExpression=expression,
            ConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues={f":{name}": value for name, value in values.items()},
        )

    adds, below = "ADD #e0 :one, #e1 :two", "attribute_not_exists(#e0) OR #e0 < :limit"
    names = {"#e0": "e0", "#e1": "e1"}
    one, two = {"N": "1"}, {"N": "2"}
    answers = [updated(adds, below, names, one=one, two=two, limit={"N": str(limit)}) for limit in (5, 2, 1, 5)]
    # The same texts naming other attributes, and the values' types told apart
    answers.append(updated(adds, below, {"#e0": "e2", "#e1": "e3"}, one=one, two=two, limit={"N": "5"}))
    equal = "#e0 = :value"
    answers += [updated("ADD #e1 :one", equal, names, one=one, value=value) for value in ({"N": "4"}, {"S": "4"})]
    # Arithmetic, functions, a set and a list; then a wrong type, a key attribute, a missing path
    answers.append(
        updated(
            "SET #e0 = #e0 + :one, #l = list_append(if_not_exists(#l, :empty), :list) ADD #s :set",
            "attribute_exists(#e0)",
            {"#e0": "e0", "#l": "l", "#s": "s"},
            one=one,
            empty={"L": []},
            list={"L": [{"S": "x"}]},
            set={"BS": [b"\x01"]},
        )
    )
    answers.append(updated("ADD #e0 :text", "attribute_exists(#e0)", {"#e0": "e0"}, text={"S": "x"}))
    answers.append(updated("SET #e0 = :one", "attribute_exists(#e0)", {"#e0": "sk"}, one=one))
    answers.append(updated("SET #e0 = #nope + :one", "attribute_exists(#e0)", {"#e0": "e0", "#nope": "nope"}, one=one))
    for _ in range(2):  # wrong texts fail each time
        answers.append(updated("ADD #e0 :one,", "attribute_exists(#e0)", {"#e0": "e0"}, one=one))
        answers.append(updated("ADD #e0 :one", "#e0 = ", {"#e0": "e0"}, one=one))
        answers.append(updated("ADD #e0 :one", "#e0 = :missing", {"#e0": "e0"}, one=one))
    # A transaction's conditions, as the ingest function's: a pack recorded is refused, again
    for digest in (b"\x01", b"\x02", b"\x02", b"\x01"):
        item = {
            "TableName": "t",
            "Key": KEY,
            "UpdateExpression": "ADD #s :digests, #e0 :one",
            "ConditionExpression": "NOT contains(#s, :digest)",
            "ExpressionAttributeNames": {"#s": "s", "#e0": "e0"},
            "ExpressionAttributeValues": {":digest": {"B": digest}, ":digests": {"BS": [digest]}, ":one": one},
        }
        other = {"TableName": "t", "Key": {"pk": {"S": "b"}, "sk": {"S": "002"}}, "ConditionExpression": "#pk = :b"}
        check = other | {"ExpressionAttributeNames": {"#pk": "pk"}, "ExpressionAttributeValues": {":b": {"S": "b"}}}
        answers.append(outcome(transact, TransactItems=[{"Update": item}, {"ConditionCheck": check}]))
        # a name the expressions do not use is refused, on the second time as on the first
        unused = item | {"ExpressionAttributeNames": item["ExpressionAttributeNames"] | {"#x": "x"}}
        answers.append(outcome(transact, TransactItems=[{"Update": unused}]))
    return answers


def test_expressions_parsed_once_per_text_answer_as_moto_parsing_each(monkeypatch):
    parses: list[Any] = []
    tokenize = ExpressionTokenizer.make_list
    paths = comparisons.ConditionExpressionParser._parse_paths

    def update_parsed(text):
        parses.append(text)
        return tokenize(text)

    def condition_parsed(self, nodes):
        parses.append(
            (self.condition_expression, repr(self.expression_attribute_names), repr(self.expression_attribute_values))
        )
        return paths(self, nodes)

    monkeypatch.setattr(ExpressionTokenizer, "make_list", update_parsed)
    monkeypatch.setattr(comparisons.ConditionExpressionParser, "_parse_paths", condition_parsed)
    with mock_aws():
        kept = expression_requests(filled_table())
    kept_parses = list(parses)
    with monkeypatch.context() as moto_own:
        for owner, name, own in moto_expressions.MOTO_OWN:
            moto_own.setattr(owner, name, own)
        parses.clear()
        with mock_aws():
            assert expression_requests(filled_table()) == kept
    codes = Counter(answer[1] if answer[0] != "done" else "done" for answer in kept)
    assert codes == {
        "done": 6,
        "ConditionalCheckFailedException": 3,
        "ValidationException": 3 + 2 + 4,  # type, key, missing path; syntax twice; unused name
        "TransactionCanceledException": 3,  # the pack recorded, each time
        "ValueError": 2,  # moto's own error for a bad comparison
        "KeyError": 2,  # and for a value not given
    }
    last = [answer[1] for answer in kept if answer[0] == "done"][-1]
    assert (last["e0"], last["s"]) == ({"N": "5"}, {"BS": [b"\x01", b"\x02"]})
    # Each text parsed once (a condition once per names and values), a wrong one at each try;
    # moto parsed each two or three times a request
    assert {parse: n for parse, n in Counter(kept_parses).items() if n > 1} == {
        "ADD #e0 :one,": 2,
        ("#e0 = ", "{'#e0': 'e0'}", "{':one': {'N': '1'}}"): 2,
        ("#e0 = :missing", "{'#e0': 'e0'}", "{':one': {'N': '1'}}"): 2,
    }
    assert (len(kept_parses), len(parses)) == (29, 84)
