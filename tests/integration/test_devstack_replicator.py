"""The local stack's stand-in for DynamoDB global tables, against moto's regions and streams:
writes reach the other regions after the lag, last writer wins, deletes replicate, nothing is
replicated back, and a stopped region catches up when it starts again."""

import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from tools.developers.devstack.replicator import RegionClients, Replicator

REGIONS = ["us-east-1", "eu-central-1", "ap-southeast-1"]
TABLE = "LinksTable"
LAG = 30.0  # seconds: far longer than a test takes, so that only the clock given decides


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def after_the_lag(self) -> None:
        self.now = time.time() + LAG + 1


@pytest.fixture
def regions(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, RegionClients]]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        clients = {}
        for region in REGIONS:
            dynamodb = boto3.client("dynamodb", region_name=region)
            dynamodb.create_table(
                TableName=TABLE,
                KeySchema=[{"AttributeName": "code", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "code", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
                StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            )
            clients[region] = RegionClients(dynamodb, boto3.client("dynamodbstreams", region_name=region))
        yield clients


def link(code: str, url: str) -> dict[str, Any]:
    return {"code": {"S": code}, "url": {"S": url}}


def url_in(clients: RegionClients, code: str) -> str | None:
    item = clients.dynamodb.get_item(TableName=TABLE, Key={"code": {"S": code}}).get("Item")
    return None if item is None else str(item["url"]["S"])


def stream_length(clients: RegionClients) -> int:
    arn = clients.dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    [shard] = clients.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    start = {"StreamArn": arn, "ShardId": shard["ShardId"], "ShardIteratorType": "TRIM_HORIZON"}
    iterator = clients.streams.get_shard_iterator(**start)["ShardIterator"]
    return len(clients.streams.get_records(ShardIterator=iterator)["Records"])


def test_a_write_reaches_every_other_region_after_the_lag_and_never_comes_back(regions):
    # Given a link written in the home region
    clock = Clock()
    replicator = Replicator(regions, [TABLE], LAG, clock)
    regions["us-east-1"].dynamodb.put_item(TableName=TABLE, Item=link("abc", "https://example.com/1"))
    # When the replicator reads the stream before the lag is over, then after it
    replicator.poll_once()
    assert [url_in(regions[region], "abc") for region in REGIONS[1:]] == [None, None]
    assert replicator.pending == 2
    clock.after_the_lag()
    replicator.poll_once()
    # Then every region has it, and its echoes in the other regions go nowhere
    assert {url_in(regions[region], "abc") for region in REGIONS} == {"https://example.com/1"}
    for _ in range(3):
        replicator.poll_once()
    assert replicator.pending == 0
    assert [stream_length(regions[region]) for region in REGIONS] == [1, 1, 1]


def test_an_edit_and_a_delete_replicate(regions):
    clock = Clock()
    replicator = Replicator(regions, [TABLE], LAG, clock)
    home = regions["us-east-1"].dynamodb
    home.put_item(TableName=TABLE, Item=link("edit", "https://example.com/old"))
    home.put_item(TableName=TABLE, Item=link("gone", "https://example.com/gone"))
    clock.after_the_lag()
    replicator.poll_once()
    # When one link is edited and the other deleted in another region
    regions["eu-central-1"].dynamodb.put_item(TableName=TABLE, Item=link("edit", "https://example.com/new"))
    regions["eu-central-1"].dynamodb.delete_item(TableName=TABLE, Key={"code": {"S": "gone"}})
    replicator.poll_once()  # read before they are due
    clock.after_the_lag()
    replicator.poll_once()
    # Then every region has the edit, and none the deleted link
    assert {url_in(regions[region], "edit") for region in REGIONS} == {"https://example.com/new"}
    assert {url_in(regions[region], "gone") for region in REGIONS} == {None}
    assert replicator.pending == 0


def test_concurrent_writes_of_one_item_in_two_regions_end_with_one_winner_everywhere(regions):
    # Given the same item written in two regions before either write was replicated
    clock = Clock()
    replicator = Replicator(regions, [TABLE], LAG, clock)
    regions["ap-southeast-1"].dynamodb.put_item(TableName=TABLE, Item=link("race", "https://example.com/first"))
    time.sleep(0.01)  # the stream records' times (ms) then tell the later write
    regions["eu-central-1"].dynamodb.put_item(TableName=TABLE, Item=link("race", "https://example.com/later"))
    # When both are replicated
    clock.after_the_lag()
    for _ in range(3):
        replicator.poll_once()
    # Then the later write won in every region, the earlier one's region included
    assert {url_in(regions[region], "race") for region in REGIONS} == {"https://example.com/later"}
    assert replicator.pending == 0


def test_a_stopped_region_neither_sends_nor_receives_until_it_starts_again(regions):
    clock = Clock()
    replicator = Replicator(regions, [TABLE], LAG, clock)
    # Given a write read from the stream of a region that then stops
    regions["ap-southeast-1"].dynamodb.put_item(TableName=TABLE, Item=link("before", "https://example.com/before"))
    replicator.poll_once()
    replicator.stop_region("ap-southeast-1")
    # And a write in a running region and one in the stopped region
    regions["us-east-1"].dynamodb.put_item(TableName=TABLE, Item=link("while", "https://example.com/away"))
    regions["ap-southeast-1"].dynamodb.put_item(TableName=TABLE, Item=link("during", "https://example.com/during"))
    clock.after_the_lag()
    replicator.poll_once()
    # Then the stopped region gets nothing and sends nothing
    assert url_in(regions["ap-southeast-1"], "while") is None
    assert url_in(regions["eu-central-1"], "while") == "https://example.com/away"
    assert url_in(regions["us-east-1"], "during") is None
    assert {url_in(regions[region], "before") for region in REGIONS[:2]} == {None}
    assert replicator.pending == 3  # what the stopped region sends and what it is to receive
    # And once it is started, both ways catch up
    replicator.start_region("ap-southeast-1")
    clock.after_the_lag()
    replicator.poll_once()
    replicator.poll_once()
    assert {url_in(regions[region], "while") for region in REGIONS} == {"https://example.com/away"}
    assert {url_in(regions[region], "during") for region in REGIONS} == {"https://example.com/during"}
    assert {url_in(regions[region], "before") for region in REGIONS} == {"https://example.com/before"}
    assert replicator.pending == 0


def test_a_burst_of_writes_reaches_every_region(regions):
    clock = Clock()
    replicator = Replicator(regions, [TABLE], LAG, clock)
    for number in range(60):
        regions["eu-central-1"].dynamodb.put_item(
            TableName=TABLE, Item=link(f"n{number}", f"https://example.com/{number}")
        )
    regions["eu-central-1"].dynamodb.delete_item(TableName=TABLE, Key={"code": {"S": "n7"}})
    clock.after_the_lag()
    replicator.poll_once()
    replicator.poll_once()
    for region in REGIONS:
        items = regions[region].dynamodb.scan(TableName=TABLE)["Items"]
        assert sorted(item["code"]["S"] for item in items) == sorted(f"n{n}" for n in range(60) if n != 7), region
    assert replicator.pending == 0
