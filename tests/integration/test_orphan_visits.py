"""Orphan visits (follows that found no live link) are counted per UTC day and outcome exactly
once per pack: a known link's in its stats, all of them stack-wide with the day's most-attempted
unknown codes, bounded, readable with the admin command."""

import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import boto3

from shortlink import wiring as services
from shortlink.clicks.events import ClickEvent, ClickPack, OrphanVisit
from shortlink.clicks.orphans import MAX_ORPHAN_CODES, STACK_ORPHANS
from tests.integration.ingest_faults import record
from tests.integration.test_flow import stats
from tools.developers.bench.write_units import item_size, metering_writes
from tools.operators import admin


def hour_of(at):
    return at.strftime("%Y-%m-%dT%H")


def ingest(handlers, packs):
    records = [record(f"m-{uuid.uuid4().hex}", pack.to_json()) for pack in packs]
    assert handlers["IngestFunction"]({"Records": records}, None) == {"batchItemFailures": []}


def day_counters(code, day):
    found: Counter[str] = Counter()
    for counts in services.click_stats().days(code, day, day):
        found.update(counts.counters)
    return found


def test_a_pack_of_orphan_visits_ingested_twice_counts_once(aws, handlers, capsys, api):
    # Given a link, and packs that bring its clicks and orphan visits, others' and unknown codes'
    key = aws.new_api_key()
    code = api.new_link(key)["code"]
    now = datetime.now(UTC)
    hour, day = hour_of(now), now.strftime("%Y-%m-%d")
    cool = ClickPack(
        "p-cool",
        (ClickEvent(uuid.uuid4().hex, code, now),),
        (OrphanVisit(code, "expired", hour, 3), OrphanVisit("nosuch", "unknown", hour, 5)),
    )
    # 200 visits in one pack: counted at once on the hot path (ledger windows, a transaction)
    hot = ClickPack(
        "p-hot",
        (),
        (OrphanVisit(code, "used_up", hour, 150), OrphanVisit("typo", "unknown", hour, 40)),
    )
    flood = ClickPack("p-flood", (), (OrphanVisit("(other)", "unknown", hour, 10),))
    # When they are ingested, then all of them again (a redelivery, a redrive)
    ingest(handlers, [cool, hot, flood])
    ingest(handlers, [flood, hot, cool])

    # Then the link's stats count its orphan visits once, per outcome
    status, report = stats(handlers, key, code)
    assert (status, report["clicks"]) == (200, 1)
    assert report["orphans"] == {"not_yet_valid": 0, "deleted": 0, "expired": 3, "used_up": 150}
    # And the stack counts every orphan visit once, with its unknown codes
    stack = day_counters(STACK_ORPHANS, day)
    assert (stack["orphans"], stack["o#unknown"], stack["o#expired"], stack["o#used_up"]) == (208, 55, 3, 150)
    assert (stack["u#nosuch"], stack["u#typo"], stack["u#(other)"]) == (5, 40, 10)
    # And the admin command prints them, most-attempted first
    capsys.readouterr()  # the functions' logs so far
    assert admin.main(["--table", "ClickStatsTable", "orphans", "--day", day]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == f"{day}: unknown 55  not_yet_valid 0  deleted 0  expired 3  used_up 150  root 0"
    assert [line.split() for line in printed[1:]] == [["40", "typo"], ["5", "nosuch"], ["10", "(other)"]]
    assert admin.main(["--table", "ClickStatsTable", "orphans", "--day", "2020-01-01"]) == 0
    assert capsys.readouterr().out == "2020-01-01: no orphan visits\n"


def test_a_flood_of_unknown_codes_costs_bounded_writes(aws, handlers):
    # Given 6 batches of 20 packs, each pack with 90 codes never seen before (10,800 codes)
    start = datetime(2026, 11, 30, 14, tzinfo=UTC)
    batches = 6
    packs = [
        [
            ClickPack(
                f"p{batch}-{n}",
                (),
                tuple(OrphanVisit(f"x{batch}-{n}-{c}", "unknown", hour_of(start), 1 + c % 3) for c in range(90)),
            )
            for n in range(20)
        ]
        for batch in range(batches)
    ]
    sent = sum(orphan.count for batch in packs for pack in batch for orphan in pack.orphans)
    # When they are ingested, and the first two batches once more
    with metering_writes(services.click_counter()._dynamodb(), boto3.client("dynamodb")) as meter:
        for batch in packs + packs[:2]:
            ingest(handlers, batch)

    # Then every visit counts once, the first MAX_ORPHAN_CODES codes apart, the rest as (other)
    stack = day_counters(STACK_ORPHANS, "2026-11-30")
    attempted = {name: count for name, count in stack.items() if name.startswith("u#")}
    assert stack["orphans"] == stack["o#unknown"] == sum(attempted.values()) == sent
    assert len(attempted) == MAX_ORPHAN_CODES + 1
    # And what it costs follows the packs, not the codes or visits: about one ledger window and
    # a share of the stack's small counters item per pack (write units as DynamoDB bills them)
    offered = 8 * 20
    assert meter.units <= 3 * offered
    assert meter.largest_item <= 8 * 1024
    items = aws.dynamodb.scan(TableName="ClickStatsTable")["Items"]
    assert max(item_size(item) for item in items) <= 8 * 1024


def test_a_known_links_orphans_count_in_its_days_only(aws, handlers, api):
    key = aws.new_api_key()
    code = api.new_link(key)["code"]
    today = datetime.now(UTC)
    long_ago = today - timedelta(days=40)
    ingest(handlers, [ClickPack("p1", (), (OrphanVisit(code, "deleted", hour_of(long_ago), 7),))])
    # 40 days ago is outside the default 30 days, inside a range that names it
    assert stats(handlers, key, code)[1]["orphans"]["deleted"] == 0
    earlier = (long_ago - timedelta(days=1)).strftime("%Y-%m-%dT00:00:00Z")
    assert stats(handlers, key, code, **{"from": earlier})[1]["orphans"]["deleted"] == 7
