"""The sync's adapter and function against the local KeyValueStore, through the real boto3
client (`cloudfront-keyvaluestore`, SigV4A-signed): the API's limits and errors as CloudFront
gives them, an ETag conflict retried, and the function writing a table's links, deletes first,
then reconciling the store and publishing what the POPs see."""

import json
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from shortlink import wiring as services
from shortlink.adapters.cloudfront.key_value_store import KeyValueStore
from shortlink.edge.store_plan import StoreUpdate
from shortlink.errors import StorageUnavailable
from tools.developers.devstack.key_value_store import KeyValueStoreService, local_arn

PROPAGATION_SECONDS = 0.05


@pytest.fixture
def local_store(tmp_path: Path) -> Iterator[tuple[KeyValueStoreService, str, str]]:
    service = KeyValueStoreService(tmp_path / "store.json", PROPAGATION_SECONDS)
    arn = local_arn("integration")
    service.create(arn)
    endpoint = service.start()
    try:
        yield service, arn, endpoint
    finally:
        service.stop()


def client(endpoint: str):
    return boto3.client(
        "cloudfront-keyvaluestore",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


def test_the_apis_limits_answer_with_cloudfronts_errors(local_store):
    _, arn, endpoint = local_store
    kvs = client(endpoint)
    etag = kvs.describe_key_value_store(KvsARN=arn)["ETag"]
    with pytest.raises(kvs.exceptions.ValidationException):
        kvs.update_keys(KvsARN=arn, IfMatch=etag, Puts=[{"Key": f"k{i}", "Value": "v"} for i in range(51)])
    with pytest.raises(kvs.exceptions.ValidationException):
        kvs.put_key(KvsARN=arn, IfMatch=etag, Key="k" * 513, Value="v")
    with pytest.raises(kvs.exceptions.ConflictException):
        kvs.put_key(KvsARN=arn, IfMatch="not-the-etag", Key="k", Value="v")
    big = [{"Key": f"{index:04d}" + "k" * 503, "Value": "v" * 1024} for index in range(50)]
    for start in range(0, 3500, 50):  # 3,500 entries of 512 + 1,024 bytes: past 5 MB on the last calls
        etag = kvs.describe_key_value_store(KvsARN=arn)["ETag"]
        puts = [{"Key": f"{start:05d}" + item["Key"], "Value": item["Value"]} for item in big]
        try:
            kvs.update_keys(KvsARN=arn, IfMatch=etag, Puts=puts)
        except kvs.exceptions.ServiceQuotaExceededException:
            break
    else:
        pytest.fail("the store took more than 5 MB")
    assert kvs.describe_key_value_store(KvsARN=arn)["TotalSizeInBytes"] <= 5 * 1024 * 1024


def test_an_etag_conflict_is_retried_with_the_etag_read_again(local_store):
    _, arn, endpoint = local_store
    store = KeyValueStore(client(endpoint), arn)
    other = client(endpoint)
    store.size()  # the adapter now holds the store's ETag
    # Another writer (an operator's takedown) gets in first
    other.put_key(KvsARN=arn, IfMatch=other.describe_key_value_store(KvsARN=arn)["ETag"], Key="taken", Value="x")
    store.apply(StoreUpdate(puts=(("mine", "y"),)))
    assert store.conflicts == 1
    assert store.entries() == {"taken": "x", "mine": "y"}


def test_a_write_the_api_refuses_is_storage_unavailable_never_a_crash(local_store):
    _, arn, endpoint = local_store
    store = KeyValueStore(client(endpoint), arn)
    with pytest.raises(StorageUnavailable):
        store.apply(StoreUpdate(puts=tuple((f"k{i}", "v") for i in range(51))))
    with pytest.raises(StorageUnavailable):
        KeyValueStore(client(endpoint), local_arn("no such store")).size()


def test_the_sync_writes_the_tables_links_and_reconciles_the_store(aws, api, handlers, local_store, monkeypatch):
    service, arn, endpoint = local_store
    monkeypatch.setenv("EDGE_STORE_ARN", arn)
    monkeypatch.setenv("AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE", endpoint)
    services.reset()
    # Given three links in the table, one of them a password link (never at the edge)
    plain = api.create(url="https://example.com/plain").json()["code"]
    other = api.create(url="https://example.com/other").json()["code"]
    locked = api.create(url="https://example.com/locked", password="s3cret-pass").json()["code"]
    items = {
        code: aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": code}})["Item"]
        for code in (plain, other, locked)
    }
    sync = handlers["EdgeSyncFunction"]
    # When their stream records come (inserts), then one is deleted by the table (TTL)
    sync({"Records": [{"eventName": "INSERT", "dynamodb": {"NewImage": item}} for item in items.values()]})
    assert set(service.stores[arn].entries) == {plain, other}
    sync({"Records": [{"eventName": "REMOVE", "dynamodb": {"OldImage": items[other]}}]})
    assert set(service.stores[arn].entries) == {plain}
    # And someone writes a stray key by hand; then the schedule's reconciliation comes
    stray = client(endpoint)
    stray.put_key(KvsARN=arn, IfMatch=stray.describe_key_value_store(KvsARN=arn)["ETag"], Key="stray", Value="[1]")
    sync({"source": "aws.events", "detail-type": "Scheduled Event"})
    # Then the store holds what the table says (the other link is still in the table), and the
    # POPs' view follows after the propagation delay
    assert set(service.stores[arn].entries) == {plain, other}
    time.sleep(PROPAGATION_SECONDS * 10)
    assert set(json.loads(service.propagation.path.read_text())) == {plain, other}
