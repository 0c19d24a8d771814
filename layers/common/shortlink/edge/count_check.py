"""The edge's counts reconciled: CloudFront's own count of the viewer-request function's
invocations against the real-time log lines ingest read, for the same closed hour.

Every request the function runs for has one log line (edge.yaml logs exactly the behaviours the
function runs on), and ingest counts the lines by the minute of their request, each line once
(shortlink.redirect.edge_log_clicks.lines_by_minute). Real-time logs are delivered best effort,
within seconds as a rule; CloudFront's metrics come within minutes: the check compares the hour
that ended SETTLE ago, never one still being delivered. What it publishes (difference and ratio)
is what the alarm watches (docs/edge.md: reconciliation).
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

PERIOD = timedelta(hours=1)
SETTLE = timedelta(minutes=30)


@dataclass(frozen=True)
class CountPeriod:
    start: datetime
    end: datetime


@dataclass(frozen=True)
class EdgeCountGap:
    """What CloudFront counted and what ingest read over `period`."""

    period: CountPeriod
    invocations: int
    lines: int

    @property
    def difference(self) -> int:
        """Invocations without a line read (negative: lines read twice or from elsewhere)."""
        return self.invocations - self.lines

    @property
    def ratio(self) -> float:
        """Lines read per invocation: 1.0 when they agree, and when there was nothing to read."""
        if self.invocations == 0:
            return 1.0 if self.lines == 0 else float(self.lines)
        return self.lines / self.invocations


class EdgeCounts(Protocol):
    def function_invocations(self, period: CountPeriod) -> int:
        """CloudFront's count of the function's invocations in `period` (StorageUnavailable when
        it cannot be read)."""

    def log_lines(self, period: CountPeriod) -> int:
        """The log lines ingest read of requests made in `period`."""


def closed_period(now: datetime) -> CountPeriod:
    """The latest whole hour that ended at least SETTLE before `now`."""
    end = (now - SETTLE).replace(minute=0, second=0, microsecond=0)
    return CountPeriod(end - PERIOD, end)


def check_edge_counts(counts: EdgeCounts, now: datetime) -> EdgeCountGap:
    """Both counts of the last closed period, side by side."""
    period = closed_period(now)
    return EdgeCountGap(period, counts.function_invocations(period), counts.log_lines(period))
