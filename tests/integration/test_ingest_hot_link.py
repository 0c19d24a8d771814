"""Exactly once past the old wall: one link clicked 60,000 times inside one 10-minute slot
(today's ledger-in-the-counters item failed at ~25,000), beside 500 cool links, in packs, through
a queue that redelivers, a function that crashes between its writes and a store that throttles."""

import random
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from shortlink import wiring as services
from shortlink.clicks.agent_classes import BOT_CLASSES, PERSON
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.clicks.tally import agent_counter, dimension_counter
from shortlink.clicks.unique_visitors import registers_of, sketch_element
from shortlink.wiring import resources
from tests.integration.ingest_faults import drain, inject_store_faults, record
from tools.developers.bench.write_units import item_size

START = datetime(2026, 11, 30, 14, 0, tzinfo=UTC)
HOT_CLICKS = 60_000
COOL_LINKS = 500
MAX_ITEM_BYTES = 64 * 1024


def hot_and_cool_packs(rng: random.Random) -> tuple[list[ClickPack], list[ClickEvent]]:
    """The hot link ramps up (packs of one, then of up to 200) over ten minutes; cool links get
    two to four clicks each, some in the hot link's packs, most in packs of their own."""
    cool_codes = [f"cool{i:03d}" for i in range(COOL_LINKS)]
    cool = [code for code in cool_codes for _ in range(rng.randint(2, 4))]
    rng.shuffle(cool)
    visitors = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(20_000)]
    clicks: list[ClickEvent] = []

    def clicked(code: str, at: datetime) -> ClickEvent:
        event = ClickEvent(
            click_id=uuid.UUID(int=rng.getrandbits(128)).hex,
            code=code,
            at=at,
            country=rng.choice(["DE", "FR", "US", "BR", "IN", "XX"]),
            device=rng.choice(["mobile", "desktop", "tablet"]),
            agent=rng.choice(BOT_CLASSES) if rng.random() < 0.05 else PERSON,
            visitor=rng.choice(visitors),
        )
        clicks.append(event)
        return event

    packs: list[ClickPack] = []
    hot_sent = 0
    while hot_sent < HOT_CLICKS:
        size = 1 if len(packs) < 40 else min(rng.randint(1, 200), HOT_CLICKS - hot_sent)
        at = START + timedelta(seconds=599.0 * hot_sent / HOT_CLICKS)
        members = [clicked("hot", at + timedelta(milliseconds=n)) for n in range(size)]
        members += [clicked(cool.pop(), at) for _ in range(rng.randint(0, 2)) if cool]
        packs.append(ClickPack(uuid.UUID(int=rng.getrandbits(128)).hex, tuple(members)))
        hot_sent += size
    while cool:
        at = START + timedelta(seconds=rng.uniform(0, 600))
        members = [clicked(cool.pop(), at) for _ in range(rng.randint(1, 5)) if cool]
        packs.append(ClickPack(uuid.UUID(int=rng.getrandbits(128)).hex, tuple(members)))
    rng.shuffle(packs[len(packs) // 2 :])  # cool packs arrive among the hot link's later ones
    return packs, clicks


@pytest.mark.slow
def test_a_hot_link_and_500_cool_links_are_counted_exactly_once(aws, handlers, template):
    rng = random.Random(13)
    packs, clicks = hot_and_cool_packs(rng)
    queue = [record(f"msg-{index}", pack.to_json()) for index, pack in enumerate(packs)]
    faults: Counter[str] = Counter()
    inject_store_faults(services.click_counter()._dynamodb(), rng, faults, crash=0.001, throttle=0.01)
    max_receives = template.resources("AWS::SQS::Queue")["ClicksQueue"]["RedrivePolicy"]["maxReceiveCount"]
    receives = drain(queue, handlers["IngestFunction"], rng, lambda: rng.randint(1, 100), faults)

    assert all(faults[kind] > 0 for kind in ("crash before write", "crash after write", "throttled")), faults
    assert faults["redelivered after delete"] > 0
    # Nothing would rest in the dead-letter queue: no message was received more often than it allows.
    assert max(receives.values()) <= max_receives
    expected: dict[str, Counter[str]] = {}
    for event in clicks:
        hour = f"{event.at.hour:02d}"
        counts = expected.setdefault(event.code, Counter())
        counts.update({"clicks": 1, f"clicks@{hour}": 1})
        counts.update({dimension_counter("country", event.country): 1, dimension_counter("device", event.device): 1})
        counts.update({"bots": 1, f"bots@{hour}": 1, agent_counter(event.agent): 1} if event.bot else {})
    assert expected["hot"]["clicks"] == HOT_CLICKS
    assert len(expected) == COOL_LINKS + 1
    store = services.click_stats()
    for code, counts in expected.items():
        [day] = store.days(code, "2026-11-30", "2026-11-30")
        assert {name: day.counters[name] for name in counts} == counts, code
        assert day.counters["clicks"] == counts["clicks"], code
    # The hot link's unique visitors: exactly the registers of every visitor it had.
    [day] = store.days("hot", "2026-11-30", "2026-11-30")
    visitors = {sketch_element(event.visitor) for event in clicks if event.code == "hot" and not event.bot}
    assert day.day_visitors == registers_of(visitors)
    [hourly] = store.days("hot", "2026-11-30", "2026-11-30", hourly=True)
    assert hourly.hour_visitors["14"] == registers_of(visitors)
    pages = aws.dynamodb.get_paginator("scan").paginate(TableName=resources().click_stats_table.value)
    assert max(item_size(item) for page in pages for item in page["Items"]) <= MAX_ITEM_BYTES
