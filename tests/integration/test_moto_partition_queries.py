"""The test double's Query (tools/moto_transactions): a query of a table's own key reads only its
partition, and answers exactly as moto's whole-table read did (order, pages, conditions, indexes)."""

from typing import Any

import boto3
from moto import mock_aws
from moto.dynamodb.models.table import Table

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


def test_a_query_reads_its_partition_alone_and_pages_and_orders_as_dynamodb(monkeypatch):
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
        # Each page read the 30 items of its partition, not the table's 90
        assert read == [30, 30, 30]
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
