"""Orphan visits as counters: whose days count them, how a flood's parts spread over the hour's
ledger windows, and the stack's most-attempted codes."""

from collections import Counter
from datetime import UTC, datetime

from shortlink.clicks.events import ClickEvent, ClickPack, OrphanVisit
from shortlink.clicks.orphans import STACK_ORPHANS, WINDOWS_PER_HOUR, orphan_increments, top_attempted
from shortlink.clicks.tally import LEDGER_WINDOW_SECONDS, PackPart, parts_per_link_day

HOUR = "2026-11-30T14"
HOUR_START = int(datetime(2026, 11, 30, 14, tzinfo=UTC).timestamp())


def test_a_known_links_orphan_visits_count_in_its_day_and_the_stacks_an_unknown_codes_in_the_stacks():
    pack = ClickPack(
        "p1",
        (ClickEvent("c1", "aaa", datetime(2026, 11, 30, 14, 5, tzinfo=UTC)),),
        (
            OrphanVisit("aaa", "expired", HOUR, 2),
            OrphanVisit("bbb", "deleted", "2026-12-01T00", 1),
            OrphanVisit("wp-login.php", "unknown", HOUR, 4),
            OrphanVisit("not a code", "expired", HOUR, 1),  # no link has it: the stack's only
        ),
    )
    parts = parts_per_link_day([pack, pack])
    assert sorted(parts) == [
        (STACK_ORPHANS, "2026-11-30"),
        (STACK_ORPHANS, "2026-12-01"),
        ("aaa", "2026-11-30"),
        ("bbb", "2026-12-01"),
    ]
    link_day = parts[("aaa", "2026-11-30")]["p1"]
    assert (len(link_day.clicks), link_day.orphans, link_day.visits) == (1, (pack.orphans[0],), 3)
    stack_day = parts[(STACK_ORPHANS, "2026-11-30")]["p1"]
    assert (stack_day.clicks, len(stack_day.orphans)) == ((), 3)
    counts = orphan_increments(stack_day.orphans, kept_codes=set())
    assert counts == Counter({"orphans": 7, "o#expired": 3, "o#unknown": 4, "u#(other)": 4})
    assert orphan_increments(stack_day.orphans, kept_codes={"wp-login.php"})["u#wp-login.php"] == 4


def test_parts_of_orphan_visits_alone_spread_over_their_hours_ledger_windows():
    windows = [PackPart(f"p{n}", (), (OrphanVisit("x", "unknown", HOUR, 1),)).ledger_window for n in range(1_000)]
    first = HOUR_START // LEDGER_WINDOW_SECONDS
    assert all(first <= window < first + WINDOWS_PER_HOUR for window in windows)
    assert len(set(windows)) > WINDOWS_PER_HOUR * 0.9
    # and a part's window follows from its content alone: the same pack, the same window
    again = PackPart("p7", (), (OrphanVisit("y", "unknown", HOUR, 3),))
    assert again.ledger_window == windows[7]


def test_the_most_attempted_codes_come_first_and_the_rest_is_other():
    counters = Counter({"u#a": 5, "u#b": 9, "u#c": 5, "u#(other)": 2, "o#unknown": 21, "clicks": 4})
    assert top_attempted(counters) == [("b", 9), ("a", 5), ("c", 5), ("(other)", 2)]
    assert top_attempted(counters, top=1) == [("b", 9), ("(other)", 12)]
