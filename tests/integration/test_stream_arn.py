"""make deploy's lookup of a region's click-stats stream (tools/operators/stream_arn.py), on moto: the value
docs/regions.md once had you paste by hand after the home region's deploy."""

import shlex

import boto3
import pytest
from moto import mock_aws

from tests.integration.conftest import use_moto_credentials
from tools.operators.secrets import environment_overrides
from tools.operators.stream_arn import deploy_arguments, needs_stream

TABLE = "shortlink-global-ClickStatsTable"


@pytest.fixture
def dynamodb(monkeypatch):
    use_moto_credentials(monkeypatch)
    with mock_aws():
        yield {region: boto3.client("dynamodb", region_name=region) for region in ("us-east-1", "eu-central-1")}


def clients(dynamodb):
    return lambda region: dynamodb[region]


def click_stats_replica(client) -> str:
    """The replica the home region's stack makes (keys as the template's), its stream's ARN."""
    table = client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    return str(table["TableDescription"]["LatestStreamArn"])


def test_a_region_away_from_home_is_told_its_own_replicas_stream_with_its_other_parameters(dynamodb):
    # Given the replica the home region's deploy made in us-east-1
    stream = click_stats_replica(dynamodb["us-east-1"])
    # When global-us is deployed
    arguments = deploy_arguments("global-us", "us-east-1", clients(dynamodb))
    # Then sam deploy gets the environment's parameters and that stream
    assert arguments[0] == "--parameter-overrides"
    told = dict(item.split("=", 1) for item in arguments[1:])
    assert told == {**environment_overrides("global-us"), "ClickStatsStreamArn": stream}
    assert shlex.split(shlex.join(arguments)) == arguments  # as make deploy passes them on


def test_the_home_region_and_one_region_need_no_stream(dynamodb):
    assert deploy_arguments("global-eu", "eu-central-1", clients(dynamodb)) == []
    assert deploy_arguments("default", "", clients(dynamodb)) == []


def test_before_the_home_region_has_made_the_replica_one_line_says_what_to_do(dynamodb):
    with pytest.raises(SystemExit) as refused:
        deploy_arguments("global-us", "us-east-1", clients(dynamodb))
    assert "deploy the home region first" in str(refused.value.code)
    assert "\n" not in str(refused.value.code)


@pytest.mark.parametrize(
    ("overrides", "region", "needed"),
    [
        ({}, "us-east-1", False),
        ({"HomeRegion": "eu-central-1"}, "eu-central-1", False),
        ({"HomeRegion": "eu-central-1"}, "us-east-1", True),
        ({"TablesInStack": "false"}, "us-east-1", True),  # upgrading, or a promoted home region's first step
        ({"HomeRegion": "us-east-1", "TablesInStack": "false"}, "us-east-1", True),
    ],
)
def test_a_stream_is_needed_exactly_where_the_template_asks_for_one(overrides, region, needed):
    assert needs_stream(overrides, region) is needed
