"""The ingest function counts each batch with one update per link and reports partial failures."""

import json
from unittest import mock

from shortlink import services
from shortlink.adapters.dynamodb import DynamoClickCounterStore
from shortlink.errors import StorageUnavailable
from tests.aws_calls import recording_aws_calls

ARN = "arn:aws:sqs:us-east-1:123456789012:ClicksQueue"


def record(message_id, body):
    return {
        "messageId": message_id,
        "receiptHandle": f"rh-{message_id}",
        "body": body,
        "attributes": {},
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": ARN,
        "awsRegion": "us-east-1",
    }


def click(code):
    return json.dumps({"code": code, "at": "2026-01-01T00:00:00+00:00"})


def test_a_batch_costs_one_write_per_link(aws, handlers):
    records = [record(f"m{i}", click(["aaa", "bbb", "ccc"][i % 3])) for i in range(100)]
    with recording_aws_calls() as calls:
        result = handlers["IngestFunction"]({"Records": records}, None)
    assert result == {"batchItemFailures": []}
    assert calls.counts() == {("dynamodb", "UpdateItem"): 3}
    store = services.click_counter_store()
    assert [store.total_clicks(code) for code in ("aaa", "bbb", "ccc")] == [34, 33, 33]


def test_malformed_messages_fail_alone(aws, handlers):
    records = [record("good", click("aaa")), record("bad-json", "{"), record("no-code", '{"at": "x"}')]
    result = handlers["IngestFunction"]({"Records": records}, None)
    assert sorted(item["itemIdentifier"] for item in result["batchItemFailures"]) == ["bad-json", "no-code"]
    assert services.click_counter_store().total_clicks("aaa") == 1


def test_a_failed_write_returns_only_that_links_messages(aws, handlers):
    real_add = DynamoClickCounterStore.add_clicks

    def throttled_for_bbb(self, code, count):
        if code == "bbb":
            raise StorageUnavailable("ProvisionedThroughputExceededException")
        return real_add(self, code, count)

    records = [record("a1", click("aaa")), record("b1", click("bbb")), record("b2", click("bbb"))]
    with mock.patch.object(DynamoClickCounterStore, "add_clicks", throttled_for_bbb):
        result = handlers["IngestFunction"]({"Records": records}, None)
    assert sorted(item["itemIdentifier"] for item in result["batchItemFailures"]) == ["b1", "b2"]
    assert services.click_counter_store().total_clicks("aaa") == 1
    assert services.click_counter_store().total_clicks("bbb") == 0
