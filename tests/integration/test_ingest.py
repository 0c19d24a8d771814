"""The ingest function counts each batch with one write per link and day, exactly once, and
reports partial failures."""

import json
import os
import random
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from botocore.exceptions import ClientError

from shortlink import wiring as services
from shortlink.adapters.dynamodb.click_counter import MAX_PACKS_PER_WRITE, DynamoClickCounter
from shortlink.clicks.agent_classes import BOT_CLASSES, PERSON
from shortlink.clicks.events import ClickEvent
from shortlink.clicks.tally import OTHER, agent_counter, dimension_counter
from shortlink.errors import StorageUnavailable
from tests.aws_calls import recording_aws_calls
from tests.integration.ingest_faults import drain, inject_store_faults, record
from tools.operators import redrive_clicks

AT = datetime(2026, 11, 30, 14, 5, tzinfo=UTC)
REFERRER, OTHER_REFERRER = dimension_counter("referrer", ""), dimension_counter("referrer", OTHER)
CLICKS = int(os.environ.get("FAULT_TEST_CLICKS", "100000"))  # fewer only to profile the test itself


def click(code, at=AT, **fields):
    return ClickEvent(uuid.uuid4().hex, code, at, **fields).to_json()


def totals(code, first="2026-11-30", last="2026-11-30"):
    found: Counter[str] = Counter()
    for day in services.click_stats().days(code, first, last):
        found.update(day.counters)
    return found


def test_a_batch_costs_one_write_per_link_and_day(aws, handlers):
    records = [record(f"m{i}", click(["aaa", "bbb", "ccc"][i % 3], country="DE")) for i in range(99)]
    records.append(record("m99", click("aaa", at=AT + timedelta(hours=1))))
    with recording_aws_calls() as calls:
        result = handlers["IngestFunction"]({"Records": records}, None)
    assert result == {"batchItemFailures": []}
    # 3 items (aaa's two hours share its day item), never one write per click; one link.clicked
    # event for the webhooks.
    assert calls.counts() == {("dynamodb", "UpdateItem"): 3, ("sqs", "SendMessage"): 1}
    assert [totals(code)["clicks"] for code in ("aaa", "bbb", "ccc")] == [34, 33, 33]
    assert totals("bbb")[dimension_counter("country", "DE")] == 33
    assert (totals("aaa")["clicks@14"], totals("aaa")["clicks@15"]) == (33, 1)


def test_a_redelivered_message_never_counts_twice(aws, handlers):
    first = [record("m1", click("aaa")), record("m2", click("aaa", agent="scanner"))]
    assert handlers["IngestFunction"]({"Records": first}, None) == {"batchItemFailures": []}
    # SQS offers m2 again (with a new click), and m2 twice in one batch.
    again = [first[1], record("m3", click("aaa")), first[1]]
    assert handlers["IngestFunction"]({"Records": again}, None) == {"batchItemFailures": []}
    assert (totals("aaa")["clicks"], totals("aaa")["bots"], totals("aaa")[agent_counter("scanner")]) == (3, 1, 1)
    # Each answered in this function's region: what the queue's clicks count where
    assert totals("aaa")[dimension_counter("answered", "us-east-1")] == 3


def test_malformed_messages_fail_alone(aws, handlers):
    records = [record("good", click("aaa")), record("bad-json", "{"), record("no-code", '{"at": "x"}')]
    result = handlers["IngestFunction"]({"Records": records}, None)
    assert sorted(item["itemIdentifier"] for item in result["batchItemFailures"]) == ["bad-json", "no-code"]
    assert totals("aaa")["clicks"] == 1


def test_a_failed_write_returns_only_that_groups_messages(aws, handlers):
    real_count = DynamoClickCounter.count

    def throttled_for_bbb(self, code, day, parts):
        if code == "bbb":
            raise StorageUnavailable("ProvisionedThroughputExceededException")
        return real_count(self, code, day, parts)

    records = [record("a1", click("aaa")), record("b1", click("bbb")), record("b2", click("bbb"))]
    with mock.patch.object(DynamoClickCounter, "count", throttled_for_bbb):
        result = handlers["IngestFunction"]({"Records": records}, None)
    assert sorted(item["itemIdentifier"] for item in result["batchItemFailures"]) == ["b1", "b2"]
    assert totals("aaa")["clicks"] == 1
    assert totals("bbb")["clicks"] == 0


def emf_records(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]


def test_the_redirects_metrics_carried_by_clicks_are_emitted_once_per_batch(aws, handlers, capsys):
    # Given clicks carrying their redirects' counts, one of them in a group that cannot be written
    real_count = DynamoClickCounter.count

    def throttled_for_bbb(self, code, day, parts):
        if code == "bbb":
            raise StorageUnavailable("ProvisionedThroughputExceededException")
        return real_count(self, code, day, parts)

    records = [record(f"a{i}", click("aaa", counts={"CacheHits": 1})) for i in range(3)]
    records += [record("a3", click("aaa", counts={"CacheMisses": 1})), record("a4", click("aaa"))]
    records.append(record("b1", click("bbb", counts={"CacheHits": 1})))
    capsys.readouterr()
    with mock.patch.object(DynamoClickCounter, "count", throttled_for_bbb):
        handlers["IngestFunction"]({"Records": records}, None)
    # Then one record under the redirect's service dimension sums the written groups' counts
    # (bbb's click comes back from SQS with its counts, and is emitted then)
    [redirect] = [rec for rec in emf_records(capsys.readouterr().out) if rec.get("service") == "redirect"]
    assert (redirect["CacheHits"], redirect["CacheMisses"]) == ([3.0], [1.0])
    assert redirect["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Shortlink"


def test_ingest_reports_its_lag_and_the_hot_link_days_it_wrote(aws, handlers, capsys):
    # Given a batch with one link clicked 100 times (hot) and another once (cool), an hour ago
    hour_ago = datetime.now(UTC) - timedelta(hours=1)
    records = [record(f"h{i}", click("hot", at=hour_ago)) for i in range(100)]
    records.append(record("c1", click("cool", at=hour_ago + timedelta(minutes=1))))
    capsys.readouterr()
    handlers["IngestFunction"]({"Records": records}, None)
    [ingest] = [rec for rec in emf_records(capsys.readouterr().out) if rec.get("service") == "ingest"]
    assert ingest["HotLinkDays"] == [1.0]
    assert 3_600 <= ingest["ClickLagSeconds"][0] < 3_700


@pytest.mark.slow
def test_exactly_once_under_redeliveries_crashes_and_throttling(aws, handlers, template):
    """100,000 clicks on 50 links (a few hot ones, as real traffic has) across three hours, one
    click per message as queued before packs, in the template's batch size, through an
    at-least-once queue that redelivers at random, a function that crashes before and after its
    writes, and a store that throttles. Every click is counted exactly once."""
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
                agent=rng.choice(BOT_CLASSES) if rng.random() < 0.1 else PERSON,
                visitor=uuid.UUID(int=rng.getrandbits(128)).hex,
            )
        )
    queue = [record(f"msg-{index}", event.to_json()) for index, event in enumerate(sent)]
    faults: Counter[str] = Counter()
    inject_store_faults(services.click_counter()._dynamodb(), rng, faults)
    trigger = template.sqs_trigger("IngestFunction")
    drain(queue, handlers["IngestFunction"], rng, lambda: trigger.batch_size, faults)

    assert all(faults[kind] > 0 for kind in ("crash before write", "crash after write", "throttled")), faults
    assert faults["redelivered after delete"] > 0
    expected: dict[str, Counter[str]] = {code: Counter() for code in codes}
    for event in sent:
        expected[event.code].update(
            {
                "clicks": 1,
                dimension_counter("country", event.country): 1,
                dimension_counter("device", event.device): 1,
                dimension_counter("answered", "us-east-1"): 1,
                "bots": int(event.bot),
            }
        )
        if event.bot:
            expected[event.code][agent_counter(event.agent)] += 1
    for code in codes:
        found = totals(code)
        assert {name: found[name] for name in expected[code]} == dict(expected[code]), code
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
    400 KB. DynamoDB refuses such a write whole (moto applies it halfway, so the refusal is
    injected here as DynamoDB sends it): the clicks are then counted under "(other)"."""
    client = services.click_counter()._dynamodb()
    writes: Counter[str] = Counter()

    def names_of(params):
        actions = [next(iter(action.values())) for action in params.get("TransactItems", [params])]
        return [name for action in actions for name in action.get("ExpressionAttributeNames", {}).values()]

    def item_full_after_five_writes(params, **_):
        writes["all"] += 1
        if writes["all"] > 5 and any(n.startswith(REFERRER) and n != OTHER_REFERRER for n in names_of(params)):
            writes["refused"] += 1
            reason = {"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"}
            error: Any = {"Error": {"Code": "TransactionCanceledException"}, "CancellationReasons": [reason]}
            raise ClientError(error, "TransactWriteItems")

    client.meta.events.register("before-parameter-build.dynamodb.TransactWriteItems", item_full_after_five_writes)
    records = [record(f"r{i}", click("aaa", referrer=f"site{i}.example")) for i in range(1_000)]
    assert handlers["IngestFunction"]({"Records": records}, None) == {"batchItemFailures": []}
    found = totals("aaa")
    # 16 transactions of 64 packs (the last of 40): the last eleven were too big as they were.
    assert writes["refused"] == 11
    assert (found["clicks"], found[OTHER_REFERRER]) == (1_000, 1_000 - 5 * MAX_PACKS_PER_WRITE)
    assert sum(count for name, count in found.items() if name.startswith(REFERRER)) == 1_000
