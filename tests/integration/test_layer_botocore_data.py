"""The layer's botocore data (package_layer.trim_botocore): our services' models without their
documentation and endpoints.json without other services still make every call we make, to the
same endpoints as botocore's own data."""

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import botocore
import pytest
from botocore.loaders import Loader
from botocore.session import Session
from package_layer import BOTOCORE_SERVICES, trim_botocore

STOCK_DATA = Path(botocore.__file__).parent / "data"
# One partition each: the endpoints we keep must resolve as botocore's full data resolves them.
REGIONS = ("us-east-1", "eu-west-1", "cn-north-1", "us-gov-west-1")


@pytest.fixture(scope="module")
def layer_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """botocore/data as the layer ships it, trimmed from the installed botocore's (the same pinned
    version), with one service we do not call to show it goes."""
    target = tmp_path_factory.mktemp("layer")
    data = target / "botocore" / "data"
    data.mkdir(parents=True)
    for entry in STOCK_DATA.iterdir():
        if entry.is_file():
            shutil.copy(entry, data)
        elif entry.name in {*BOTOCORE_SERVICES, "sns"}:
            shutil.copytree(entry, data / entry.name)
    trim_botocore(target)
    return data


def without_documentation(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_documentation(item) for key, item in value.items() if not key.startswith("documentation")}
    if isinstance(value, list):
        return [without_documentation(item) for item in value]
    return value


def session_on(data: Path) -> Session:
    session = Session()
    session.register_component(
        "data_loader", Loader(extra_search_paths=[str(data)], include_default_search_paths=False)
    )
    return session


def test_only_our_services_are_kept_as_plain_json(layer_data):
    assert {entry.name for entry in layer_data.iterdir() if entry.is_dir()} == BOTOCORE_SERVICES
    assert not list(layer_data.rglob("*.json.gz"))  # botocore reads a .json before a .json.gz


def test_the_models_lose_their_documentation_and_nothing_else(layer_data):
    trimmed_bytes = stock_bytes = 0
    for model in layer_data.glob("*/*/service-2.json"):
        trimmed = json.loads(model.read_bytes())
        stock = json.loads(
            gzip.decompress((STOCK_DATA / model.relative_to(layer_data)).with_suffix(".json.gz").read_bytes())
        )
        assert without_documentation(trimmed) == without_documentation(stock)  # nothing else lost
        assert "documentation" not in json.dumps([trimmed["operations"], trimmed["shapes"]])
        trimmed_bytes += model.stat().st_size
        stock_bytes += len(json.dumps(stock))
    # Less than half in all (a small model such as cloudfront-keyvaluestore's has little documentation to lose)
    assert trimmed_bytes < stock_bytes / 2
    for rules in layer_data.glob("*/*/endpoint-rule-set-1.json"):
        stock_rules = gzip.decompress((STOCK_DATA / rules.relative_to(layer_data)).with_suffix(".json.gz").read_bytes())
        assert json.loads(rules.read_bytes()) == json.loads(stock_rules)


# Each service's endpoint prefix: its name but for SES v2's (`email`).
ENDPOINT_PREFIXES = {Session().get_service_model(name).endpoint_prefix for name in BOTOCORE_SERVICES}


def test_endpoints_keep_every_partition_with_our_services_only(layer_data):
    trimmed = json.loads((layer_data / "endpoints.json").read_bytes())
    stock = json.loads((STOCK_DATA / "endpoints.json").read_bytes())
    assert len(trimmed["partitions"]) == len(stock["partitions"])
    for ours, theirs in zip(trimmed["partitions"], stock["partitions"], strict=True):
        assert {key: value for key, value in ours.items() if key != "services"} == {
            key: value for key, value in theirs.items() if key != "services"
        }
        offered = ENDPOINT_PREFIXES & set(theirs["services"])  # Cognito and SES are not in every partition
        assert set(ours["services"]) == offered
        assert all(ours["services"][name] == theirs["services"][name] for name in offered)
    assert (layer_data / "endpoints.json").stat().st_size < (STOCK_DATA / "endpoints.json").stat().st_size / 20


@pytest.mark.parametrize("service", sorted(BOTOCORE_SERVICES))
def test_clients_resolve_the_endpoints_botocore_resolves(layer_data, service, monkeypatch):
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    for region in REGIONS:
        ours = session_on(layer_data).create_client(
            service, region_name=region, aws_access_key_id="k", aws_secret_access_key="s"
        )
        stock = Session().create_client(service, region_name=region, aws_access_key_id="k", aws_secret_access_key="s")
        assert ours.meta.endpoint_url == stock.meta.endpoint_url
        assert ours.meta.service_model.operation_names == stock.meta.service_model.operation_names


def test_the_calls_we_make_succeed_through_the_trimmed_data(layer_data, aws):
    session = session_on(layer_data)

    def client(service: str) -> Any:
        return session.create_client(service, region_name="us-east-1")

    table = aws.dynamodb.list_tables()["TableNames"][0]
    key_name = aws.dynamodb.describe_table(TableName=table)["Table"]["KeySchema"][0]["AttributeName"]
    dynamodb = client("dynamodb")
    dynamodb.put_item(TableName=table, Item={key_name: {"S": "k1"}, "n": {"N": "1"}})
    dynamodb.update_item(
        TableName=table,
        Key={key_name: {"S": "k1"}},
        UpdateExpression="SET #n = #n + :one",
        ConditionExpression="attribute_exists(#n)",
        ExpressionAttributeNames={"#n": "n"},
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    item = dynamodb.get_item(TableName=table, Key={key_name: {"S": "k1"}}, ConsistentRead=True)["Item"]
    assert item["n"] == {"N": "2"}
    with pytest.raises(dynamodb.exceptions.ConditionalCheckFailedException):
        dynamodb.put_item(
            TableName=table,
            Item={key_name: {"S": "k1"}},
            ConditionExpression="attribute_not_exists(#k)",
            ExpressionAttributeNames={"#k": key_name},
        )
    sqs = client("sqs")
    queue_url = next(iter(aws.queue_urls.values()))
    sqs.send_message(QueueUrl=queue_url, MessageBody="click")
    assert [message["Body"] for message in sqs.receive_message(QueueUrl=queue_url)["Messages"]] == ["click"]
    ssm = client("ssm")
    ssm.put_parameter(Name="/shortlink/test", Value="secret", Type="SecureString")
    assert ssm.get_parameter(Name="/shortlink/test", WithDecryption=True)["Parameter"]["Value"] == "secret"
    assert client("sts").get_caller_identity()["Account"]
    # moto has no GetSamplingRules (what the X-Ray SDK reads); a segment shows the client works.
    segment: dict[str, Any] = {"trace_id": "1-5f84c7a1-3a5d5e2b8c8d4e2f1a2b3c4d", "id": "70de5b6f19ff9a0a"}
    segment |= {"name": "redirect", "start_time": 1.0, "end_time": 2.0}
    sent = client("xray").put_trace_segments(TraceSegmentDocuments=[json.dumps(segment)])
    assert sent["UnprocessedTraceSegments"] == []
