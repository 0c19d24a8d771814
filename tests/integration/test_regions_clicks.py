"""Clicks in a deployment of three regions: each click counted in the region that answered it, in
items no other region writes; stats summed over every region's items in any region; each
region's account aggregator skipping the replicated stream records of other regions' items."""

import json
import random
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.clicks.events import ClickEvent, ClickPack, OrphanVisit
from shortlink.clicks.orphans import STACK_ORPHANS
from tests.events import bearer, http_event
from tests.integration.ingest_faults import record
from tests.integration.regions import HOME, REGIONS, Deployment, deployment
from tests.integration.stream_delivery import HandlerCaller
from tests.integration.test_flow import stats
from tools.developers.devstack.resources import stream_arns
from tools.developers.devstack.stream_trigger import StreamPoller

STATS, LINKS = "ClickStatsTable", "LinksTable"
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
TODAY = NOW.strftime("%Y-%m-%d")
CLICKS_PER_REGION = dict(zip(REGIONS, (23, 40, 9), strict=True))  # enough in one region for a hot day


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


def tagged_link(regions: Deployment, handlers, key: str) -> str:
    regions.enter(HOME)
    body = {"url": "https://example.com/launch", "tags": ["spring"]}
    response = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body), None)
    assert response["statusCode"] == 201, response
    regions.replicate(HOME, (LINKS,))
    return str(json.loads(response["body"])["code"])


def count_clicks_in_each_region(regions: Deployment, handlers, code: str, owner: str, rng: random.Random) -> None:
    """Each region's ingest counts its own clicks (and an orphan visit), every message delivered
    once or twice."""
    visitors = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(30)]
    for region, count in CLICKS_PER_REGION.items():
        regions.enter(region)
        clicks = [
            ClickEvent(
                uuid.uuid4().hex,
                code,
                NOW + timedelta(minutes=rng.randrange(50)),
                country=rng.choice(["DE", "SG", "US"]),
                visitor=rng.choice(visitors),
                owner=owner,
                tags=("spring",),
            )
            for _ in range(count)
        ]
        packs = [ClickPack(uuid.uuid4().hex, tuple(clicks[start : start + 4])) for start in range(0, count, 4)]
        orphan = OrphanVisit("nosuch", "unknown", NOW.strftime("%Y-%m-%dT%H"), 1)
        packs.append(ClickPack(uuid.uuid4().hex, (), (orphan,)))
        messages = [record(f"m-{pack.pack_id}", pack.to_json()) for pack in packs]
        deliveries = messages + [message for message in messages if rng.random() < 0.5]  # redelivered
        rng.shuffle(deliveries)
        for start in range(0, len(deliveries), 5):
            event = {"Records": deliveries[start : start + 5]}
            assert handlers["IngestFunction"](event, None) == {"batchItemFailures": []}


def aggregate_each_regions_stream(regions: Deployment, handlers, template) -> Counter[str]:
    """Each region's AccountStatsFunction fed with its own stream (replicated records included),
    until drained; the records each region was offered."""
    trigger = template.stream_trigger("AccountStatsFunction")
    offered: Counter[str] = Counter()
    for region in REGIONS:
        regions.enter(region)
        arn = stream_arns(template, regions.dynamodb(region))[trigger.table_id]
        streams = boto3.client("dynamodbstreams", region_name=region)
        poller = StreamPoller(trigger, arn, streams, HandlerCaller(handlers), region)
        while batch := poller.poll_once():
            offered[region] += batch
    return offered


def test_clicks_in_three_regions_are_counted_once_each_and_summed_in_every_region(regions, handlers, template):
    rng = random.Random(29)
    key = regions.new_api_key()
    owner = key_id_for(hash_api_key(key))
    code = tagged_link(regions, handlers, key)
    # When three regions answer and count clicks of one link, some messages twice
    count_clicks_in_each_region(regions, handlers, code, owner, rng)
    # Then each region wrote only items of its own (the region is the last part of every key)
    for region in REGIONS:
        buckets = {item["bucket"]["S"] for item in regions.items(region, STATS)}
        assert buckets
        assert all(f"#{region}" in bucket for bucket in buckets), buckets
    # And, the click-stats tables replicated, every region's stats sum all three regions' clicks
    for region in REGIONS:
        regions.replicate(region, (STATS,))
    total = sum(CLICKS_PER_REGION.values())
    for region in REGIONS:
        regions.enter(region)
        status, report = stats(handlers, key, code)
        assert (status, report["clicks"]) == (200, total), report
        answered = {top["value"]: top["clicks"] for top in report["top"]["answered"]}
        assert answered == CLICKS_PER_REGION  # where each click was answered: its region
        orphans = services.click_stats().days(STACK_ORPHANS, TODAY, TODAY)
        assert sum(day.counters.get("orphans", 0) for day in orphans) == 3

    # When each region's account aggregator reads its stream, replicated records of the other
    # regions' items included
    offered = aggregate_each_regions_stream(regions, handlers, template)
    assert all(offered[region] > 0 for region in REGIONS)
    # Then, the account days replicated too, the account's and tag's stats are exact everywhere
    for region in REGIONS:
        regions.replicate(region, (STATS,))
    for region in REGIONS:
        regions.enter(region)
        for query in ({}, {"tag": "spring"}):
            response = handlers["ManageFunction"](http_event("GET", "/stats", headers=bearer(key), query=query), None)
            assert response["statusCode"] == 200, response
            account = json.loads(response["body"])
            assert account["clicks"] == total
            assert {top["value"]: top["clicks"] for top in account["top"]["answered"]} == CLICKS_PER_REGION
    # And a stream read again (replicated account days in it) adds nothing
    aggregate_each_regions_stream(regions, handlers, template)
    regions.enter(REGIONS[2])
    response = handlers["ManageFunction"](http_event("GET", "/stats", headers=bearer(key)), None)
    assert json.loads(response["body"])["clicks"] == total
