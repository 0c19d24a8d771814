"""GET /stats: an account's and a tag's clicks, added from their links' day changes by the
stream aggregator (AccountStatsFunction) into days of their own, each change exactly once
however ingest and the stream deliver it; their totals are their links'."""

import json
import random
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import LINKS_WRITE, STATS_READ, generate_api_key, hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.adapters.dynamodb.click_stats_table import day_key
from shortlink.clicks import account_tally
from shortlink.clicks.account_tally import OTHER_LINKS, account_subject
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.wiring import resources
from tests.events import bearer, http_event
from tests.integration.ingest_faults import drain, inject_store_faults, record
from tests.integration.stream_delivery import StreamDelivery
from tests.integration.test_flow import drain_clicks, stats

TODAY = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


def account_stats(handlers, key, **query):
    response = handlers["ManageFunction"](http_event("GET", "/stats", headers=bearer(key), query=query), None)
    return response["statusCode"], response


def account_report(handlers, key, **query):
    status, response = account_stats(handlers, key, **query)
    assert status == 200, response
    return json.loads(response["body"])


def tagged_link(handlers, key, tags):
    body = {"url": "https://example.com/campaign", "tags": tags}
    response = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body), None)
    assert response["statusCode"] == 201, response
    return json.loads(response["body"])["code"]


@pytest.mark.slow
def test_two_owners_links_and_tags_are_counted_once_under_redelivery_crashes_and_throttling(aws, handlers, template):
    rng = random.Random(42)
    # Given two keys' links with tags: one link busy enough to make its account day hot
    alice, bob = aws.new_api_key("alice"), aws.new_api_key("bob")
    tags = {"a1": ["promo"], "a2": ["promo", "spring"], "a3": [], "b1": ["promo"]}
    keys = {"a1": alice, "a2": alice, "a3": alice, "b1": bob}
    codes = {name: tagged_link(handlers, keys[name], tags[name]) for name in tags}
    owners = {name: key_id_for(hash_api_key(keys[name])) for name in tags}
    clicks_per_link = {"a1": 300, "a2": 40, "a3": 7, "b1": 25}
    visitors = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(300)]
    clicks = [
        ClickEvent(
            uuid.UUID(int=rng.getrandbits(128)).hex,
            codes[name],
            TODAY - timedelta(minutes=rng.randrange(50)),
            country=rng.choice(["DE", "FR"]),
            visitor=rng.choice(visitors),
            owner=owners[name],
            tags=tuple(tags[name]),
            repeat=n % 5 == 1,  # flagged as the redirect flags a visitor's quick second follow
        )
        for name, count in clicks_per_link.items()
        for n in range(count)
    ]
    rng.shuffle(clicks)
    packs, taken = [], 0
    while taken < len(clicks):  # packs of 1 to 30 clicks, of several links and both owners
        size = rng.randint(1, 30)
        packs.append(ClickPack(uuid.uuid4().hex, tuple(clicks[taken : taken + size])))
        taken += size
    # When they go through a queue that redelivers, a function that crashes between its writes
    # (so between a link's counters and its sketches) and a store that throttles
    faults: Counter[str] = Counter()
    for store in (services.click_counter(), services.click_stats()):  # ingest's writes, the aggregator's
        inject_store_faults(store._dynamodb(), rng, faults, crash=0.06, throttle=0.05)
    queue = [record(f"m-{pack.pack_id}", pack.to_json()) for pack in packs]
    drain(queue, lambda event: handlers["IngestFunction"](event, None), rng, lambda: rng.randint(1, 8), faults)
    assert faults["crash before write"]
    assert faults["crash after write"]
    assert faults["redelivered after delete"]
    # And their day changes through the stream to an aggregator that crashes and is throttled too
    ingest_faults = faults.copy()
    StreamDelivery(template, aws.dynamodb, handlers).drain()
    assert faults["crash after write"] > ingest_faults["crash after write"]
    assert faults["throttled"] > ingest_faults["throttled"]

    # Then each account's totals are exactly the sum of its links' stats, and each tag's its links'
    link_clicks = {name: stats(handlers, keys[name], codes[name])[1]["clicks"] for name in tags}
    assert link_clicks == clicks_per_link
    link_repeats = {name: stats(handlers, keys[name], codes[name])[1]["repeat_clicks"] for name in tags}
    assert link_repeats == {
        name: sum(1 for click in clicks if click.code == codes[name] and click.repeat) for name in tags
    }
    report = account_report(handlers, alice)
    assert report["clicks"] == 347
    assert report["repeat_clicks"] == sum(1 for click in clicks if click.owner == owners["a1"] and click.repeat)
    assert sum(point["clicks"] for point in report["series"]) == 347
    assert report["top"]["country"] == [
        {"value": c, "clicks": n}
        for c, n in Counter(click.country for click in clicks if click.owner == owners["a1"]).most_common()
    ]
    assert report["top_links"] == [
        {"code": codes["a1"], "domain": None, "clicks": 300},
        {"code": codes["a2"], "domain": None, "clicks": 40},
        {"code": codes["a3"], "domain": None, "clicks": 7},
    ]
    distinct = len({click.visitor for click in clicks if click.owner == owners["a1"]})
    assert abs(report["unique_visitors"] - distinct) <= 0.1 * distinct  # HyperLogLog, across links
    assert (report["tag"], "code" not in report) == (None, True)
    assert account_report(handlers, alice, tag="promo")["clicks"] == 340
    spring = account_report(handlers, alice, tag="spring")
    assert (spring["tag"], spring["clicks"], spring["top_links"]) == (
        "spring",
        40,
        [{"code": codes["a2"], "domain": None, "clicks": 40}],
    )
    assert account_report(handlers, alice, tag="nothing")["clicks"] == 0
    bobs = account_report(handlers, bob, tag="promo")  # another key's tag of the same name
    assert (bobs["clicks"], bobs["top_links"]) == (25, [{"code": codes["b1"], "domain": None, "clicks": 25}])
    assert account_report(handlers, bob)["clicks"] == 25
    # And the whole stream replayed from its first record (as after a lost checkpoint) adds nothing
    before = [
        account_report(handlers, alice),
        account_report(handlers, alice, tag="promo"),
        account_report(handlers, bob),
    ]
    replay = StreamDelivery(template, aws.dynamodb, handlers)
    replay.drain()
    assert replay.caller.events
    assert [
        account_report(handlers, alice),
        account_report(handlers, alice, tag="promo"),
        account_report(handlers, bob),
    ] == before


def test_a_click_counts_for_its_links_owner_and_tags_when_it_was_counted(aws, handlers, template, api):
    key = aws.new_api_key()
    code = tagged_link(handlers, key, ["spring"])
    stream = StreamDelivery(template, aws.dynamodb, handlers)
    # Given a click through the redirect, counted, then the link retagged, then another click
    assert api.follow(code).status == 302
    assert drain_clicks(aws, handlers) == 1
    assert api.patch(code, key, tags=["summer"]).status == 200
    services.forget_cached_links()  # the redirect's cached copy has expired
    assert api.follow(code).status == 302
    assert drain_clicks(aws, handlers) == 1
    stream.drain()
    # Then each click counts for the tags its link had when it was clicked and counted
    assert account_report(handlers, key)["clicks"] == 2
    assert account_report(handlers, key, tag="spring")["clicks"] == 1
    assert account_report(handlers, key, tag="summer")["clicks"] == 1
    # And the CSV form is the series, bad parameters a 422 naming them, and no key a 401
    status, csv = account_stats(handlers, key, tag="summer", format="csv")
    assert (status, csv["headers"]["Content-Disposition"]) == (200, 'attachment; filename="tag-summer-stats.csv"')
    assert csv["body"].splitlines()[0] == (
        "start,clicks,bots,unique_visitors,repeat_clicks,people,"
        "crawler,previewer,scanner,monitor,library,ai_agent,unknown_bot"
    )
    assert csv["body"].splitlines()[-1].split(",")[1] == "1"
    for query, field in (
        ({"tag": "no spaces"}, "tag"),
        ({"granularity": "week"}, "granularity"),
        ({"from": "x"}, "from"),
    ):
        status, refused = account_stats(handlers, key, **query)
        assert status == 422, query
        assert field in json.loads(refused["body"])["message"], refused
    anonymous = handlers["ManageFunction"](http_event("GET", "/stats"), None)
    assert anonymous["statusCode"] == 401


def test_an_account_day_ranks_a_bounded_number_of_links_and_counts_every_click(aws, handlers, template, monkeypatch):
    monkeypatch.setattr(account_tally, "TOP_LINKS", 5)  # the bound's logic, with few links to write
    key = aws.new_api_key()
    owner = key_id_for(hash_api_key(key))
    # Given one batch of one click on each of 2.5 times as many links as a day ranks
    links = [f"link{n:04d}" for n in range(13)]
    clicks = tuple(ClickEvent(f"c{n}", code, TODAY, owner=owner) for n, code in enumerate(links))
    packs = [ClickPack(f"p{n}", clicks[n : n + 5]) for n in range(0, len(clicks), 5)]
    records = [record(f"m{n}", pack.to_json()) for n, pack in enumerate(packs)]
    assert handlers["IngestFunction"]({"Records": records}, None) == {"batchItemFailures": []}
    updated: list[str] = []
    services.click_stats().client().meta.events.register(
        "before-parameter-build.dynamodb.UpdateItem", lambda params, **_: updated.append(params["Key"]["code"]["S"])
    )
    StreamDelivery(template, aws.dynamodb, handlers).drain()
    # Then one stream batch is one write of the account's day, which counts every click, ranks
    # the first 5 links, the rest together
    bucket = day_key("c#", TODAY.strftime("%Y-%m-%d"), "us-east-1")
    item = aws.dynamodb.get_item(
        TableName=resources().click_stats_table.value,
        Key={"code": {"S": account_subject(owner)}, "bucket": {"S": bucket}},
    )["Item"]
    assert {name for name in item if name.startswith("lk#")} == {f"lk#{code}" for code in links[:5]} | {
        f"lk#{OTHER_LINKS}"
    }
    assert int(item["clicks"]["N"]) == len(links)
    assert int(item[f"lk#{OTHER_LINKS}"]["N"]) == len(links) - 5
    assert updated == [account_subject(owner)]
    report = account_report(handlers, key)
    assert report["clicks"] == len(links)
    assert report["top_links"] == [{"code": code, "domain": None, "clicks": 1} for code in links[:5]]


def test_a_replayed_stream_batch_and_one_grown_by_later_records_add_each_change_once(aws, handlers, template):
    key = aws.new_api_key()
    owner = key_id_for(hash_api_key(key))
    code = tagged_link(handlers, key, ["promo"])
    stream = StreamDelivery(template, aws.dynamodb, handlers)

    def ingest(batch, clicks):
        made = tuple(ClickEvent(f"c{batch}-{n}", code, TODAY, owner=owner, tags=("promo",)) for n in range(clicks))
        result = handlers["IngestFunction"]({"Records": [record(f"m{batch}", ClickPack(f"p{batch}", made).to_json())]})
        assert result == {"batchItemFailures": []}

    def totals():
        return account_report(handlers, key)["clicks"], account_report(handlers, key, tag="promo")["clicks"]

    # Given a link's first ingest batch (3 clicks) applied from its stream batch
    ingest(0, 3)
    stream.drain()
    first = stream.caller.events[0]  # (the next holds only the account's own writes, skipped)
    assert totals() == (3, 3)
    # When Lambda delivers that batch again, then once more grown by the next batch's records (4)
    handlers["AccountStatsFunction"](first)
    ingest(1, 4)
    replay = StreamDelivery(template, aws.dynamodb, handlers)
    replay.drain()  # from the stream's first record: the first batch's and the second's together
    # Then each change was added once
    assert len(replay.caller.events[0]["Records"]) > len(first["Records"])
    assert totals() == (7, 7)
    # And an event that does not name its shard (an event source without its tumbling window) is refused
    with pytest.raises(ValueError, match="shardId"):
        handlers["AccountStatsFunction"]({"Records": first["Records"]})
    assert totals() == (7, 7)


def test_every_key_of_an_account_reads_its_links_on_every_domain_and_their_orphan_visits_stay_theirs(
    aws, handlers, template, monkeypatch, api
):
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt,go.example")  # as deployed with Domains
    services.reset()
    # Given an account's "promo" on two domains, created by its first key, and a second key of
    # that account that may read stats only
    creator = aws.new_api_key()
    reader = generate_api_key()
    reader_hash = hash_api_key(reader)
    owner = key_id_for(hash_api_key(creator))
    store = DynamoApiKeyStore(resources().api_keys_table.value)
    store.add(reader_hash, key_id_for(reader_hash), "board", scopes=frozenset({STATS_READ}), owner=owner)
    assert api.create(creator, slug="promo", tags=["spring"]).status == 201
    assert api.create(creator, slug="promo", domain="go.example", tags=["spring"]).status == 201
    # When each is followed on its own host (twice and once), and the default domain's is then
    # deleted and followed again (an orphan visit)
    for host in ("sho.rt", "sho.rt", "go.example"):
        assert api.follow("promo", host=host).status == 302
    deleted = http_event("DELETE", "/links/promo", route="/links/{code}", headers=bearer(creator))
    deleted["pathParameters"] = {"code": "promo"}
    assert handlers["ManageFunction"](deleted)["statusCode"] == 204
    services.forget_cached_links()
    assert api.follow("promo", host="sho.rt").status == 410
    while drain_clicks(aws, handlers):
        pass
    StreamDelivery(template, aws.dynamodb, handlers).drain()
    # Then the account's other key reads both links' clicks, and the deleted link's orphan visit
    # is in its own stats only; the top links name codes, which a stats-only key may not read
    report = account_report(handlers, reader)
    assert (report["clicks"], "orphans" in report, report["top_links"]) == (3, False, [])
    # And a key that also reads links gets them ranked, each with its domain
    report = account_report(handlers, creator)
    assert report["top_links"] == [
        {"code": "promo", "domain": "sho.rt", "clicks": 2},
        {"code": "promo", "domain": "go.example", "clicks": 1},
    ]
    assert account_report(handlers, reader, tag="spring")["clicks"] == 3
    status, own = stats(handlers, creator, "promo")
    assert (status, own["clicks"], own["orphans"]["deleted"]) == (200, 2, 1)
    # And a key of the account without stats:read is refused, naming the scope
    writer = generate_api_key()
    writer_hash = hash_api_key(writer)
    store.add(writer_hash, key_id_for(writer_hash), "ci", scopes=frozenset({LINKS_WRITE}), owner=owner)
    status, refused = account_stats(handlers, writer)
    assert (status, json.loads(refused["body"])["scope"]) == (403, STATS_READ)
