"""Accounts' and tags' click counters in the click-stats table: written as a link's are
(DynamoClickStats, the same ledger and hot path), each click's link counted too within the
bounds of shortlink.account_tally.LinkSlots."""

from collections.abc import Sequence, Set

from shortlink.account_tally import LinkSlots
from shortlink.adapters.dynamodb_click_stats import DynamoClickStats
from shortlink.click_tally import PackPart

# Account days whose link counters this environment remembers (a day's first count reads them).
MAX_REMEMBERED_DAYS = 10_000


class DynamoAccountStats:
    def __init__(self, days: DynamoClickStats) -> None:
        self._days = days  # counting each click's link too (DynamoClickStats.counting_links)
        self._slots: dict[tuple[str, str], LinkSlots] = {}

    def count(self, subject: str, day: str, parts: Sequence[PackPart], hot_links: Set[str] = frozenset()) -> int:
        """Count these parts of one subject's day, each exactly once (see DynamoClickStats.count);
        `hot_links`: the codes whose own day is hot."""
        slots = self._slots.get((subject, day))
        if slots is None:
            if len(self._slots) >= MAX_REMEMBERED_DAYS:
                self._slots.clear()
            slots = self._slots[(subject, day)] = LinkSlots(self._days.counter_names(subject, day))
        return self._days.count(subject, day, [slots.slotted(part, hot_links) for part in parts])
