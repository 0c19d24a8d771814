"""The links list's glance at each link: its clicks by people on each of the last 7 UTC days,
today included, from the days' counters (bots left out, as the stats' `people` does)."""

from datetime import datetime, timedelta

from shortlink.clicks.day_counts import DayCounts

GLANCE_DAYS = 7
# The counters the glance needs of a day item: its clicks and bots, the day's totals (ingest adds
# each click to them and to its hour's alike), not the 48 of its hours, nor dimensions or ledgers.
GLANCE_COUNTERS = ("clicks", "bots")


def glance_days(now: datetime) -> list[str]:
    """The last GLANCE_DAYS UTC days up to `now`'s, oldest first (e.g. 2026-11-30)."""
    return [(now - timedelta(days=back)).strftime("%Y-%m-%d") for back in range(GLANCE_DAYS - 1, -1, -1)]


def people_per_day(day: DayCounts | None) -> int:
    """A day's clicks by people: its clicks less its bots."""
    if day is None:
        return 0
    return day.counters["clicks"] - day.counters["bots"]


def daily_people(days: dict[str, DayCounts], names: list[str]) -> list[int]:
    """Clicks by people on each of the days `names` (oldest first), 0 where none was counted."""
    return [people_per_day(days.get(name)) for name in names]
