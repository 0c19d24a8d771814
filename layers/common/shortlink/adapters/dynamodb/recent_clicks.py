"""How hot a link is for the edge's capacity rule: its clicks of the last days, from the
click-stats table (every region's counters of each day, summed as the stats read them)."""

from datetime import date, timedelta

from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader

HEAT_DAYS = 7


class RecentLinkClicks:
    """RecentClicks over the stats reader, up to `today` (UTC)."""

    def __init__(self, stats: DynamoClickStatsReader, today: date, days: int = HEAT_DAYS) -> None:
        self._stats = stats
        self._last = today.isoformat()
        self._first = (today - timedelta(days=days - 1)).isoformat()

    def recent_clicks(self, key: str) -> int:
        return sum(
            count
            for day in self._stats.days(key, self._first, self._last)
            for name, count in day.counters.items()
            if name.startswith("clicks@")
        )
