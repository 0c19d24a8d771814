"""Stats read counters only, in a number of items that follows the range's days, not the clicks:
a month of a link that was hot on one day reads two Query pages of day items and day sketches,
from a partition that holds nothing else (hour sketches and ledger windows have their own)."""

import json
import random
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

from shortlink import wiring as services
from shortlink.adapters.dynamodb.click_stats_table import hours_partition, ledger_partition
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.wiring import resources
from tests.aws_calls import recording_aws_calls
from tests.integration.ingest_faults import record
from tests.integration.test_flow import stats_response
from tools.developers.bench.write_units import item_size

DAYS = 30


def hot_month(aws, handlers, api, seed):
    """A link of a new key with a month of clicks ingested: a hot hour (5,000 clicks in packs of
    100) ending an hour before `end` (yesterday noon), three clicks on each other day. Key, code,
    end, hot clicks."""
    key = aws.new_api_key()
    code = api.new_link(key)["code"]
    # Yesterday noon, whatever the hour the test runs at: the hot hour and each day's clicks then
    # fall inside their own days (at 00:30 an hour-aligned `end` put them on the day before).
    end = (datetime.now(UTC) - timedelta(days=1)).replace(hour=12, minute=0, second=0, microsecond=0)
    packs, hot = month_of_clicks(code, end, random.Random(seed))
    records = [record(f"m-{pack.pack_id}", pack.to_json()) for pack in packs]
    assert handlers["IngestFunction"]({"Records": records}, None) == {"batchItemFailures": []}
    return key, code, end, hot


def month_of_clicks(code, end, rng):

    def clicked(at):
        visitor = uuid.UUID(int=rng.getrandbits(128)).hex
        return ClickEvent(uuid.uuid4().hex, code, at, country=rng.choice(["DE", "FR", "US"]), visitor=visitor)

    hot_hour = end - timedelta(hours=2)
    hot = [clicked(hot_hour + timedelta(milliseconds=n * 600)) for n in range(5_000)]
    packs = [ClickPack(uuid.uuid4().hex, tuple(hot[n : n + 100])) for n in range(0, len(hot), 100)]
    for back in range(1, DAYS):
        day = end - timedelta(days=back)
        packs.append(ClickPack(uuid.uuid4().hex, tuple(clicked(day - timedelta(minutes=m)) for m in range(3))))
    return packs, hot


def read_stats(handlers, key, code, **query):
    pages = []

    def page_read(parsed, **_):
        pages.append(parsed)

    client = services.click_stats()._dynamodb()
    client.meta.events.register("after-call.dynamodb.Query", page_read)
    with recording_aws_calls() as calls:
        response = stats_response(handlers, key, code, **query)
    client.meta.events.unregister("after-call.dynamodb.Query", page_read)
    assert response["statusCode"] == 200
    items = [item for page in pages for item in page["Items"]]
    return json.loads(response["body"]), calls.counts()[("dynamodb", "Query")], items


def test_a_month_of_a_hot_link_reads_day_items_and_day_sketches_only(aws, handlers, api):
    key, code, end, hot = hot_month(aws, handlers, api, seed=30)
    query = {"from": (end - timedelta(days=DAYS - 1)).strftime("%Y-%m-%dT00:00:00Z")}

    report, queries, items = read_stats(handlers, key, code, **query)

    assert report["clicks"] == len(hot) + 3 * (DAYS - 1)
    # One Query for the days' counters, one for the busy day's sketch: nothing else, no ledger.
    assert queries == 2
    assert {item["bucket"]["S"][:2] for item in items} == {"c#", "s#"}
    assert {item["code"]["S"] for item in items} == {code}
    assert len(items) == DAYS + 1
    assert sum(item_size(item) for item in items) <= 30 * 1024
    assert abs(report["unique_visitors"] - (len(hot) + 3 * (DAYS - 1))) <= 0.1 * len(hot)


def test_an_hourly_series_reads_hour_sketches_instead_of_day_sketches(aws, handlers, api):
    key, code, end, hot = hot_month(aws, handlers, api, seed=31)
    query = {"from": (end - timedelta(hours=6)).strftime("%Y-%m-%dT%H:00:00Z"), "granularity": "hour"}

    report, queries, items = read_stats(handlers, key, code, **query)

    assert queries == 2
    assert {item["bucket"]["S"][:2] for item in items} <= {"c#", "t#"}
    assert {item["code"]["S"] for item in items} == {code, hours_partition(code)}
    hot_point = next(point for point in report["series"] if point["clicks"])
    assert hot_point["clicks"] == len(hot)
    assert abs(hot_point["unique_visitors"] - len(hot)) <= 0.1 * len(hot)


def test_a_links_partition_holds_its_day_items_only(aws, handlers, api):
    code = hot_month(aws, handlers, api, seed=32)[1]

    def partition(name):
        pages = aws.dynamodb.get_paginator("query").paginate(
            TableName=resources().click_stats_table.value,
            KeyConditionExpression="#code = :code",
            ExpressionAttributeNames={"#code": "code"},
            ExpressionAttributeValues={":code": {"S": name}},
        )
        return Counter(item["bucket"]["S"][:2] for page in pages for item in page["Items"])

    # A Query of a link's days walks 30 counters items and one day sketch, not its hours' or
    # ledgers' items (moto's Query walks the whole partition; DynamoDB bills what it returns).
    assert partition(code) == {"c#": DAYS, "s#": 1}
    assert partition(hours_partition(code)) == {"t#": 1}  # the hot hour's sketch
    assert set(partition(ledger_partition(code))) == {"l#"}
