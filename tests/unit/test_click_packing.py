"""When held clicks go, and what a queue message holds (shortlink.clicks.packing)."""

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from shortlink.clicks.events import (
    MAX_ORPHAN_CODE_LENGTH,
    MAX_PACK_BYTES,
    MAX_PACK_CLICKS,
    MAX_PACK_ORPHANS,
    OVERFLOW_ORPHAN_CODE,
    ClickEvent,
    ClickPack,
    OrphanVisit,
    orphan_code,
)
from shortlink.clicks.packing import HeldClicks, PackingRules, form_packs

AT = datetime(2026, 11, 30, 14, 5, 59, 999999, tzinfo=UTC)
RULES = PackingRules(window_seconds=1.0, max_clicks=100)


def click(n: int, code: str = "abc") -> ClickEvent:
    return ClickEvent(f"id{n}", code, AT)


def longest_click(n: int) -> ClickEvent:
    """A click with every field at the longest the redirect ever writes."""
    return ClickEvent(
        click_id=f"{'f' * 24}{n:08x}",
        code="s" * 64,  # a slug
        at=AT,
        country="XX",
        device="desktop",
        browser="samsung",
        os="chromeos",
        referrer="r" * 100,
        language="unknown",
        agent="previewer",  # the longest class a click is queued with
        visitor="v" * 32,
        counts={"CacheHits": 100, "CacheMisses": 100},
    )


def test_an_idle_environment_sends_at_once_and_a_busy_one_once_per_window():
    held = HeldClicks(RULES)
    # An environment that sent nothing yet: its first click goes at once
    held.add([click(1)], [], {})
    assert held.due(now=100.0)
    [pack] = held.take(now=100.0).packs
    assert [c.click_id for c in pack.clicks] == ["id1"]
    # Clicks within the window after a send are held...
    for n in range(2, 50):
        held.add([click(n)], [], {})
        assert not held.due(now=100.0 + n / 100)
    assert held.due_at() == 101.0
    # ...and go together once it has passed: one message for 48 redirects
    assert held.due(now=101.0)
    [pack] = held.take(now=101.0).packs
    assert len(pack.clicks) == 48
    # After a quiet window, the next click goes at once again
    held.add([click(99)], [], {})
    assert held.due(now=102.5)
    assert held.take(now=102.5).packs[0].clicks == (click(99),)
    assert held.due_at() is None


def test_max_clicks_sends_before_the_window_ends():
    held = HeldClicks(PackingRules(window_seconds=60, max_clicks=10))
    held.add([click(0)], [], {})
    held.take(now=0.0)
    for n in range(1, 10):
        held.add([click(n)], [], {})
        assert not held.due(now=1.0)
    held.add([click(10)], [], {})
    assert held.due(now=1.0)
    assert len(held.take(now=1.0).packs[0].clicks) == 10


def test_metrics_are_held_and_emitted_with_the_flush():
    held = HeldClicks(RULES)
    held.take(now=0.0)
    held.add([], [], {"RuleDenials": 1})
    held.add([], [], {"RuleDenials": 1, "UnlockFailures": 1})
    assert not held.due(now=0.5)
    flush = held.take(now=1.0)
    assert flush.packs == []  # nothing to queue: only a metrics record
    assert flush.counts == {"RuleDenials": 2, "UnlockFailures": 1}


def test_a_pack_of_the_longest_clicks_and_orphans_is_split_to_fit_sqs():
    clicks = [longest_click(n) for n in range(MAX_PACK_CLICKS)]
    orphans = [OrphanVisit("\u4e00" * MAX_ORPHAN_CODE_LENGTH, "unknown", "2026-11-30T14", 10**9)] * MAX_PACK_ORPHANS
    assert len(clicks[0].to_json()) * MAX_PACK_CLICKS > MAX_PACK_BYTES  # one pack could not hold them
    packs = form_packs(clicks, orphans)
    assert len(packs) > 1
    for pack in packs:
        body = pack.to_json()
        assert len(body.encode()) <= MAX_PACK_BYTES
        assert len(pack.clicks) <= MAX_PACK_CLICKS
        assert len(pack.orphans) <= MAX_PACK_ORPHANS
        assert ClickPack.from_message(body, message_id="m") == pack  # ingest reads it back whole
    # Every click exactly once, in order; every pack its own id
    assert [c for pack in packs for c in pack.clicks] == clicks
    assert sum(len(pack.orphans) for pack in packs) == MAX_PACK_ORPHANS
    assert len({pack.pack_id for pack in packs}) == len(packs)


def test_a_flood_of_unknown_codes_costs_one_bounded_pack():
    held = HeldClicks(RULES)
    for n in range(10_000):
        held.add([], [(f"guess{n}", "unknown", "2026-11-30T14")], {})
    held.add([], [("known", "expired", "2026-11-30T14")] * 3, {})
    [pack] = held.take(now=0.0).packs
    assert len(pack.orphans) <= MAX_PACK_ORPHANS
    by_code = {(orphan.code, orphan.outcome): orphan.count for orphan in pack.orphans}
    assert sum(by_code.values()) == 10_003
    assert by_code[("guess0", "unknown")] == 1
    assert by_code[(OVERFLOW_ORPHAN_CODE, "unknown")] > 9_000
    assert by_code[(OVERFLOW_ORPHAN_CODE, "expired")] == 3  # the table was full when it came


def test_repeated_orphan_visits_are_counted_not_repeated():
    held = HeldClicks(RULES)
    held.add([], [("gone", "deleted", "2026-11-30T14")] * 500 + [("gone", "deleted", "2026-11-30T15")], {})
    [pack] = held.take(now=0.0).packs
    assert sorted((o.hour, o.count) for o in pack.orphans) == [("2026-11-30T14", 500), ("2026-11-30T15", 1)]


@given(st.text(max_size=300))
def test_an_attempted_code_is_kept_printable_and_bounded(typed):
    code = orphan_code(typed)
    assert 0 < len(code) <= MAX_ORPHAN_CODE_LENGTH
    assert code.isprintable()
    OrphanVisit.from_dict({"code": code, "outcome": "unknown", "hour": "2026-11-30T14", "count": 1})


def test_an_attempted_code_is_what_was_typed():
    assert orphan_code("Promo2026") == "Promo2026"
    assert orphan_code("a\x00b\nc") == "abc"
    assert orphan_code("\x00") == OVERFLOW_ORPHAN_CODE
