"""The faster moto transactions still cancel whole: nothing of a cancelled one stays written,
nor streamed (DynamoDB streams only what a transaction commits)."""

import boto3
import pytest

from shortlink.wiring import resources


def stream_keys(dynamodb, table):
    streams = boto3.client("dynamodbstreams")
    arn = dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    (shard,) = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    start = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
    return [
        record["dynamodb"]["Keys"] for record in streams.get_records(ShardIterator=start["ShardIterator"])["Records"]
    ]


def test_a_cancelled_transaction_leaves_every_item_as_it_was(aws):
    table = resources().click_stats_table.value
    key = {"code": {"S": "aaa"}, "bucket": {"S": "c#2026-11-30#us-east-1"}}
    aws.dynamodb.put_item(TableName=table, Item={**key, "clicks": {"N": "1"}})
    fresh = {"code": {"S": "aaa"}, "bucket": {"S": "l#2026-11-30#us-east-1#1"}}
    with pytest.raises(aws.dynamodb.exceptions.TransactionCanceledException):
        aws.dynamodb.transact_write_items(
            TransactItems=[
                {"Update": {"TableName": table, "Key": key, "UpdateExpression": "ADD #c :one", **NAMES}},
                {"Put": {"TableName": table, "Item": {**fresh, "clicks": {"N": "1"}}}},
                {"Update": {**CONDITION, "TableName": table, "Key": key | {"bucket": {"S": "nowhere"}}}},
            ]
        )
    assert aws.dynamodb.get_item(TableName=table, Key=key)["Item"]["clicks"] == {"N": "1"}
    assert "Item" not in aws.dynamodb.get_item(TableName=table, Key=fresh)
    assert stream_keys(aws.dynamodb, table) == [key]  # the put before it, nothing of the transaction


NAMES = {"ExpressionAttributeNames": {"#c": "clicks"}, "ExpressionAttributeValues": {":one": {"N": "1"}}}
CONDITION = {"UpdateExpression": "ADD #c :one", "ConditionExpression": "attribute_exists(#c)", **NAMES}
