"""What a batch of packs adds to each link's day, and the sketch registers that merge exactly."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.clicks.events import EDGE, ClickEvent, ClickPack
from shortlink.clicks.tally import PackPart, counter_increments, pack_digest, parts_per_link_day, visitor_elements
from shortlink.clicks.unique_visitors import (
    REGISTERS,
    estimate,
    estimate_registers,
    merge_registers,
    packed_registers,
    registers_of,
    unpacked_registers,
)

AT = datetime(2026, 11, 30, 23, 59, 30, tzinfo=UTC)
elements = st.sets(st.integers(min_value=0, max_value=REGISTERS * 64 - 1), max_size=300)


def click(code, at=AT, **fields):
    return ClickEvent(f"{code}-{at.timestamp()}-{len(fields)}", code, at, **fields)


def test_a_batch_is_grouped_per_link_and_day_and_a_pack_delivered_twice_counts_once():
    late, early = click("aaa"), click("aaa", AT + timedelta(minutes=1))  # across midnight
    first = ClickPack("p1", (late, early, click("bbb")))
    parts = parts_per_link_day([first, ClickPack("p2", (click("aaa", AT - timedelta(seconds=1)),)), first])
    assert {key: sorted(parts[key]) for key in parts} == {
        ("aaa", "2026-11-30"): ["p1", "p2"],
        ("aaa", "2026-12-01"): ["p1"],
        ("bbb", "2026-11-30"): ["p1"],
    }
    assert parts[("aaa", "2026-11-30")]["p1"].clicks == (late,)


@given(st.permutations(range(5)))
def test_a_parts_ledger_window_and_digest_follow_from_its_content_alone(order):
    clicks = [click("aaa", AT + timedelta(seconds=3 * n)) for n in range(5)]
    shuffled = PackPart("p1", tuple(clicks[n] for n in order))
    assert shuffled.ledger_window == PackPart("p1", tuple(clicks)).ledger_window == int(AT.timestamp()) // 10
    assert shuffled.digest == pack_digest("p1") != pack_digest("p2")
    assert len(shuffled.digest) == 8


def test_counters_name_the_day_total_the_hour_and_each_dimension():
    counts = counter_increments([click("aaa", referrer="x.example", agent="crawler"), click("aaa", country="DE")])
    assert counts["clicks"] == counts["clicks@23"] == 2
    assert counts["bots"] == counts["bots@23"] == counts["bots#crawler"] == 1
    assert (counts["cc#DE"], counts["cc#XX"], counts["rf#x.example"]) == (1, 1, 1)
    coarse = counter_increments([click("aaa", referrer="x.example", language="de")], coarse=True)
    assert (coarse["rf#(other)"], coarse["ln#(other)"], coarse["cc#XX"]) == (1, 1, 1)


def test_repeats_are_counted_among_the_clicks_and_on_their_own():
    counts = counter_increments([click("aaa", visitor="ab" * 16), click("aaa", visitor="ab" * 16, repeat=True)])
    assert counts["clicks"] == 2
    assert counts["repeats"] == counts["repeats@23"] == 1
    assert "repeats" not in counter_increments([click("aaa")])  # no counter until one is counted


def test_a_campaign_is_a_dimension_visitors_may_flood_like_referrers():
    counts = counter_increments([click("aaa", campaign="spring"), click("aaa", campaign="spring"), click("aaa")])
    assert (counts["cp#spring"], counts["cp#(none)"]) == (2, 1)
    # A forwarded utm_campaign is the visitor's to choose: counted under (other) once the item is full.
    assert counter_increments([click("aaa", campaign="made-up")], coarse=True)["cp#(other)"] == 1


def test_where_a_click_was_answered_is_said_by_the_path_it_came_by_not_by_the_queued_click():
    # Given a pack as the redirect queues it: its clicks do not say where they were answered
    pack = ClickPack("p1", (click("aaa"), click("bbb", country="DE")))
    assert '"answered"' not in pack.to_json()
    queued = ClickPack.from_message(pack.to_json(), "m1")
    assert {each.answered for each in queued.clicks} == {"unknown"}
    # When ingest reads it from a region's queue, or as the edge's log lines
    regional, edge = queued.answered_in("eu-west-1"), queued.answered_in(EDGE)
    # Then each click counts under that place, and under nothing else
    assert counter_increments(regional.clicks)["an#eu-west-1"] == 2
    assert counter_increments(edge.clicks)["an#edge"] == 2
    assert "an#unknown" not in counter_increments(edge.clicks)
    assert (edge.pack_id, [each.code for each in edge.clicks]) == ("p1", ["aaa", "bbb"])


def test_bots_are_not_visitors():
    found = visitor_elements([click("aaa", visitor="ab" * 16), click("aaa", visitor="cd" * 16, agent="library")])
    assert list(found) == ["23"]
    assert len(found["23"]) == 1


@given(elements, elements)
def test_the_registers_of_a_union_are_the_merged_registers(first, second):
    merged = registers_of(first)
    raised = merge_registers(merged, registers_of(second))
    assert merged == registers_of(first | second)
    assert raised == (merged != registers_of(first))
    assert estimate_registers(merged) == estimate(first | second)


@given(elements)
def test_packed_registers_round_trip_within_one_kilobyte(found):
    registers = registers_of(found)
    assert unpacked_registers(packed_registers(registers)) == registers
    assert len(packed_registers(registers)) < 1024


@pytest.mark.parametrize("blob", [b"", b"not zlib", packed_registers(bytes(10))])
def test_anything_but_a_packed_sketch_is_refused(blob):
    with pytest.raises(ValueError, match="sketch"):
        unpacked_registers(blob)


def test_a_click_is_queued_and_read_with_its_agents_class():
    # Given a person's click and a scanner's, as the redirect queues them
    person, scanner = click("aaa"), click("aaa", agent="scanner")
    assert ('"agent"' in person.to_json(), '"bot"' in person.to_json()) == (False, False)
    assert ('"agent":"scanner"' in scanner.to_json(), '"bot":true' in scanner.to_json()) == (True, True)
    # When ingest reads them, each keeps its class, and counts under its day's class
    read = ClickPack.from_message(ClickPack("p1", (person, scanner)).to_json(), "m1").clicks
    assert [(each.agent, each.bot) for each in read] == [("person", False), ("scanner", True)]
    assert counter_increments(read)["bots#scanner"] == 1


@pytest.mark.parametrize(
    ("queued", "agent"),
    [
        ({"bot": True}, "unknown_bot"),  # queued before clicks carried a class
        ({"bot": True, "agent": "made-up"}, "unknown_bot"),
        ({"bot": True, "agent": ["crawler"]}, "unknown_bot"),
        ({"bot": False, "agent": "crawler"}, "person"),
        ({"agent": "ai_agent"}, "person"),
        ({}, "person"),
    ],
)
def test_a_click_queued_before_classes_or_naming_none_we_know_is_still_counted(queued, agent):
    body = {"click_id": "c1", "code": "aaa", "at": AT.isoformat(), **queued}
    read = ClickEvent.from_json(json.dumps(body))
    assert read.agent == agent
    counts = counter_increments([read])
    # An unknown bot counts among the bots without a class counter: the stats show the day's
    # bots less their classes' as unknown_bot
    assert counts["bots"] == int(read.bot)
    assert not [name for name in counts if name.startswith("bots#")]
