"""The ingest function counts each batch with one write per link and 10 minutes, exactly once,
and reports partial failures."""

import json
import os
import random
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

from botocore.exceptions import ClientError

from shortlink import services
from shortlink.adapters.dynamodb_click_stats import DynamoClickStats
from shortlink.clicks import ClickEvent
from shortlink.errors import StorageUnavailable
from tests.aws_calls import recording_aws_calls
from tools import redrive_clicks

ARN = "arn:aws:sqs:us-east-1:123456789012:ClicksQueue"
AT = datetime(2026, 11, 30, 14, 5, tzinfo=UTC)
CLICKS = int(os.environ.get("FAULT_TEST_CLICKS", "100000"))  # fewer only to profile the test itself


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


def click(code, at=AT, **fields):
    return ClickEvent(uuid.uuid4().hex, code, at, **fields).to_json()


def totals(code, first="2026-11-30T00", last="2026-11-30T23"):
    found: Counter[str] = Counter()
    for item in services.click_stats().hours(code, first, last):
        found.update({name: value for name, value in item.items() if isinstance(value, int)})
    return found


def test_a_batch_costs_one_write_per_link_and_ten_minutes(aws, handlers):
    records = [record(f"m{i}", click(["aaa", "bbb", "ccc"][i % 3], country="DE")) for i in range(99)]
    records.append(record("m99", click("aaa", at=AT + timedelta(hours=1))))
    with recording_aws_calls() as calls:
        result = handlers["IngestFunction"]({"Records": records}, None)
    assert result == {"batchItemFailures": []}
    # 4 items (aaa in two hours), never one write per click.
    assert calls.counts() == {("dynamodb", "UpdateItem"): 4}
    assert [totals(code)["clicks"] for code in ("aaa", "bbb", "ccc")] == [34, 33, 33]
    assert totals("bbb")["country#DE"] == 33


def test_a_redelivered_message_never_counts_twice(aws, handlers):
    first = [record("m1", click("aaa")), record("m2", click("aaa", bot=True))]
    assert handlers["IngestFunction"]({"Records": first}, None) == {"batchItemFailures": []}
    # SQS offers m2 again (with a new click), and m2 twice in one batch.
    again = [first[1], record("m3", click("aaa")), first[1]]
    assert handlers["IngestFunction"]({"Records": again}, None) == {"batchItemFailures": []}
    assert (totals("aaa")["clicks"], totals("aaa")["bots"]) == (3, 1)


def test_malformed_messages_fail_alone(aws, handlers):
    records = [record("good", click("aaa")), record("bad-json", "{"), record("no-code", '{"at": "x"}')]
    result = handlers["IngestFunction"]({"Records": records}, None)
    assert sorted(item["itemIdentifier"] for item in result["batchItemFailures"]) == ["bad-json", "no-code"]
    assert totals("aaa")["clicks"] == 1


def test_a_failed_write_returns_only_that_groups_messages(aws, handlers):
    real_add = DynamoClickStats.add

    def throttled_for_bbb(self, code, hour, clicks):
        if code == "bbb":
            raise StorageUnavailable("ProvisionedThroughputExceededException")
        return real_add(self, code, hour, clicks)

    records = [record("a1", click("aaa")), record("b1", click("bbb")), record("b2", click("bbb"))]
    with mock.patch.object(DynamoClickStats, "add", throttled_for_bbb):
        result = handlers["IngestFunction"]({"Records": records}, None)
    assert sorted(item["itemIdentifier"] for item in result["batchItemFailures"]) == ["b1", "b2"]
    assert totals("aaa")["clicks"] == 1
    assert totals("bbb")["clicks"] == 0


def emf_records(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]


def test_the_redirects_metrics_carried_by_clicks_are_emitted_once_per_batch(aws, handlers, capsys):
    # Given clicks carrying their redirects' counts, one of them in a group that cannot be written
    real_add = DynamoClickStats.add

    def throttled_for_bbb(self, code, hour, clicks):
        if code == "bbb":
            raise StorageUnavailable("ProvisionedThroughputExceededException")
        return real_add(self, code, hour, clicks)

    records = [record(f"a{i}", click("aaa", counts={"CacheHits": 1})) for i in range(3)]
    records += [record("a3", click("aaa", counts={"CacheMisses": 1})), record("a4", click("aaa"))]
    records.append(record("b1", click("bbb", counts={"CacheHits": 1})))
    capsys.readouterr()
    with mock.patch.object(DynamoClickStats, "add", throttled_for_bbb):
        handlers["IngestFunction"]({"Records": records}, None)
    # Then one record under the redirect's service dimension sums the written groups' counts
    # (bbb's click comes back from SQS with its counts, and is emitted then)
    [redirect] = [rec for rec in emf_records(capsys.readouterr().out) if rec.get("service") == "redirect"]
    assert (redirect["CacheHits"], redirect["CacheMisses"]) == ([3.0], [1.0])
    assert redirect["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Shortlink"


class Crash(Exception):
    """The function dies: Lambda reports an error and SQS offers the whole batch again."""


def test_exactly_once_under_redeliveries_crashes_and_throttling(aws, handlers, template):
    """100,000 clicks on 50 links (a few hot ones, as real traffic has) across three hours, in
    the template's batch size, through an at-least-once queue that redelivers at random, a
    function that crashes before and after its writes, and a store that throttles. Every click
    is counted exactly once."""
    rng = random.Random(20261130)
    codes = [f"link{i:03d}" for i in range(50)]
    weights = [1 / (rank + 1) ** 1.5 for rank in range(len(codes))]
    sent: list[ClickEvent] = []
    for index in range(CLICKS):
        at = AT + timedelta(seconds=index * 10_800 / CLICKS + rng.random())  # three hours, roughly in order
        sent.append(
            ClickEvent(
                click_id=f"click-{index}",
                code=rng.choices(codes, weights)[0],
                at=at,
                country=rng.choice(["DE", "FR", "US", "XX"]),
                device=rng.choice(["mobile", "desktop", "bot"]),
                bot=rng.random() < 0.1,
                visitor=uuid.UUID(int=rng.getrandbits(128)).hex,
            )
        )
    queue = [record(f"msg-{index}", event.to_json()) for index, event in enumerate(sent)]
    deleted: list[dict[str, Any]] = []

    client = services.click_stats()._dynamodb()
    faults: Counter[str] = Counter()

    def before_write(**_):
        roll = rng.random()
        if roll < 0.002:
            faults["crash before write"] += 1
            raise Crash("before write")
        if roll < 0.02:
            faults["throttled"] += 1
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException"}}, "UpdateItem")

    def after_write(**_):
        if rng.random() < 0.002:
            faults["crash after write"] += 1
            raise Crash("after write")

    client.meta.events.register("before-call.dynamodb.UpdateItem", before_write)
    client.meta.events.register("after-call.dynamodb.UpdateItem", after_write)
    [trigger] = template.sqs_triggers()
    batch_size = trigger.batch_size
    invocations = 0
    while queue and invocations < 5_000:
        invocations += 1
        for _ in range(rng.randrange(5)):  # a standard queue keeps only rough order
            queue.insert(0, queue.pop(rng.randrange(len(queue))))
        batch, queue = queue[:batch_size], queue[batch_size:]
        if deleted and rng.random() < 0.2:  # at-least-once: an already deleted message comes back
            duplicates = rng.sample(deleted, min(len(deleted), rng.randrange(1, 10)))
            batch = batch + duplicates
            faults["redelivered after delete"] += len(duplicates)
        try:
            result = handlers["IngestFunction"]({"Records": batch}, None)
        except Crash:
            queue.extend(batch)  # nothing was deleted: all of it comes back
            continue
        failed = {item["itemIdentifier"] for item in result["batchItemFailures"]}
        queue.extend(message for message in batch if message["messageId"] in failed)
        deleted.extend(message for message in batch if message["messageId"] not in failed)
        faults["partial failures"] += len(failed)

    assert not queue, f"still queued after {invocations} invocations"
    assert all(faults[kind] > 0 for kind in ("crash before write", "crash after write", "throttled")), faults
    assert faults["redelivered after delete"] > 0
    expected: dict[str, Counter[str]] = {code: Counter() for code in codes}
    for event in sent:
        expected[event.code].update(
            {"clicks": 1, f"country#{event.country}": 1, f"device#{event.device}": 1, "bots": int(event.bot)}
        )
    store = services.click_stats()
    for code in codes:
        found: Counter[str] = Counter()
        for item in store.hours(code, "2026-11-30T00", "2026-11-30T23"):
            found.update({name: value for name, value in item.items() if name in expected[code]})
        assert found == +expected[code], code
    assert sum(counts["clicks"] for counts in expected.values()) == CLICKS


def test_dead_letters_are_redriven_and_counted_once(aws, handlers):
    dead, live = aws.queue_urls["ClicksDeadLetterQueue"], aws.queue_urls["ClicksQueue"]
    body = click("aaa")
    for _ in range(2):  # the same click twice: a redrive after a partial one
        aws.sqs.send_message(QueueUrl=dead, MessageBody=body)
    assert redrive_clicks.main(["--dead-letter-queue-url", dead, "--queue-url", live]) == 0
    messages = aws.sqs.receive_message(QueueUrl=live, MaxNumberOfMessages=10)["Messages"]
    assert len(messages) == 2
    assert "Messages" not in aws.sqs.receive_message(QueueUrl=dead, MaxNumberOfMessages=10)
    records = [record(message["MessageId"], message["Body"]) for message in messages]
    assert handlers["IngestFunction"]({"Records": records}, None) == {"batchItemFailures": []}
    assert totals("aaa")["clicks"] == 1


def test_an_item_filled_by_made_up_referrers_keeps_counting_every_click(aws, handlers):
    """A bot sends clicks with a different Referer each until its item would pass DynamoDB's
    400 KB. DynamoDB refuses such an update whole (moto applies it halfway, so the refusal is
    injected here as DynamoDB sends it): the clicks are then counted under "(other)"."""
    client = services.click_stats()._dynamodb()
    writes: Counter[str] = Counter()

    def item_full_after_five_writes(params, **_):
        names = params.get("ExpressionAttributeNames", {}).values()
        writes["all"] += 1
        if writes["all"] > 5 and any(name.startswith("referrer#") and name != "referrer#(other)" for name in names):
            writes["refused"] += 1
            message = "Item size to update has exceeded the maximum allowed size"
            raise ClientError({"Error": {"Code": "ValidationException", "Message": message}}, "UpdateItem")

    client.meta.events.register("before-parameter-build.dynamodb.UpdateItem", item_full_after_five_writes)
    records = [record(f"r{i}", click("aaa", referrer=f"site{i}.example")) for i in range(1_000)]
    assert handlers["IngestFunction"]({"Records": records}, None) == {"batchItemFailures": []}
    found = totals("aaa")
    assert writes["refused"] == 5  # ten writes of 100 clicks: the last five were too big as they were
    assert (found["clicks"], found["referrer#(other)"]) == (1_000, 500)
    assert sum(count for name, count in found.items() if name.startswith("referrer#")) == 1_000
