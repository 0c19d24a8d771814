"""The edge's counts check: the closed hour it compares, and the difference and ratio it reports,
with a fake of its port."""

from datetime import UTC, datetime

import pytest

from shortlink.edge.count_check import CountPeriod, EdgeCountGap, check_edge_counts, closed_period


class FakeEdgeCounts:
    def __init__(self, invocations: int, lines: int) -> None:
        self.invocations, self.lines = invocations, lines
        self.periods: list[CountPeriod] = []

    def function_invocations(self, period: CountPeriod) -> int:
        self.periods.append(period)
        return self.invocations

    def log_lines(self, period: CountPeriod) -> int:
        self.periods.append(period)
        return self.lines


@pytest.mark.parametrize(
    ("now", "start"),
    [
        (datetime(2026, 12, 6, 12, 45, tzinfo=UTC), datetime(2026, 12, 6, 11, tzinfo=UTC)),
        # Before half past, the last hour may still be delivered: the one before it
        (datetime(2026, 12, 6, 12, 29, 59, tzinfo=UTC), datetime(2026, 12, 6, 10, tzinfo=UTC)),
        (datetime(2026, 12, 7, 0, 10, tzinfo=UTC), datetime(2026, 12, 6, 22, tzinfo=UTC)),
    ],
)
def test_the_period_is_the_last_whole_hour_that_ended_half_an_hour_ago(now, start):
    period = closed_period(now)
    assert (period.start, (period.end - period.start).total_seconds()) == (start, 3600)
    assert (now - period.end).total_seconds() >= 30 * 60


def test_both_counts_are_of_the_same_period_and_the_gap_says_what_was_lost():
    # Given CloudFront counted 10,000 invocations and ingest read 9,950 lines
    counts = FakeEdgeCounts(10_000, 9_950)
    # When the check runs
    gap = check_edge_counts(counts, datetime(2026, 12, 6, 12, 45, tzinfo=UTC))
    # Then both were read for one period, and 50 lines (0.5 %) are missing
    assert counts.periods[0] == counts.periods[1] == gap.period
    assert (gap.difference, gap.ratio) == (50, 0.995)


def test_lines_read_twice_show_as_a_ratio_over_one_and_no_traffic_as_agreement():
    period = closed_period(datetime(2026, 12, 6, 12, 45, tzinfo=UTC))
    assert (EdgeCountGap(period, 100, 103).difference, EdgeCountGap(period, 100, 103).ratio) == (-3, 1.03)
    assert EdgeCountGap(period, 0, 0).ratio == 1.0
    assert EdgeCountGap(period, 0, 4).ratio > 1
