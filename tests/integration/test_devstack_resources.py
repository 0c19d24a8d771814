"""The local stack's tables come from the template, also on a store without Time to Live."""

from typing import Any

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws

from tools.devstack.resources import create_tables

# What template.yaml declares its tables as (global tables, one replica per region).
from tools.devstack.template import GLOBAL_TABLE_TYPE as TABLE_TYPE


def refuse_time_to_live(**_: Any) -> None:
    # What dynalite (a DynamoDB without TTL) answers UpdateTimeToLive with.
    answer: Any = {"Error": {"Code": "UnknownOperationException", "Message": ""}}
    raise ClientError(answer, "UpdateTimeToLive")


def test_a_store_without_ttl_gets_every_table_and_says_which_lack_their_ttl(template, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        dynamodb.meta.events.register("before-call.dynamodb.UpdateTimeToLive", refuse_time_to_live)
        without_ttl = create_tables(template, dynamodb)
        with_ttl = [
            name for name, table in template.resources(TABLE_TYPE).items() if "TimeToLiveSpecification" in table
        ]
        assert with_ttl
        assert sorted(without_ttl) == sorted(with_ttl)
        assert set(template.resources(TABLE_TYPE)) <= set(dynamodb.list_tables()["TableNames"])


def test_ttl_is_set_where_the_store_has_it(template, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        assert create_tables(template, dynamodb) == []
        for name, table in template.resources(TABLE_TYPE).items():
            described = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
            expected = "ENABLED" if "TimeToLiveSpecification" in table else "DISABLED"
            assert described["TimeToLiveStatus"] == expected, name
