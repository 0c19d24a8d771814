"""A link's stats over a time range, from its hourly counters: totals, a time series, and the
top values of each dimension. Unique visitors are estimated per day (the visitor hash's salt
changes daily, so nobody is followed across days); a range's total is the sum of its days'."""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from shortlink.clicks import DIMENSIONS
from shortlink.errors import InvalidLinkOption
from shortlink.moments import RANGE_TEXT, in_utc
from shortlink.unique_visitors import estimate

Granularity = Literal["hour", "day"]
DEFAULT_RANGE = timedelta(days=30)
# Series length bounds: 31 days of hours (744 points), about 13 months of days.
MAX_RANGE = {"hour": timedelta(days=31), "day": timedelta(days=400)}
SERIES = {"hour": "an hourly series", "day": "a daily series"}
MAX_AHEAD = timedelta(days=1)
TOP_VALUES = 10
HOUR_FORMAT = "%Y-%m-%dT%H"


@dataclass(frozen=True)
class StatsRange:
    start: datetime  # inclusive, on an hour boundary
    end: datetime  # exclusive, on an hour boundary
    granularity: Granularity

    @property
    def first_hour(self) -> str:
        return self.start.strftime(HOUR_FORMAT)

    @property
    def last_hour(self) -> str:
        return (self.end - timedelta(hours=1)).strftime(HOUR_FORMAT)


def _checked(name: str, moment: datetime | None) -> datetime | None:
    """A query parameter's moment in UTC; an error names the parameter."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        raise InvalidLinkOption(name, f"{name} must carry a time zone (e.g. 2026-11-01T00:00:00Z)")
    utc = in_utc(moment)
    if utc is None:
        raise InvalidLinkOption(name, f"{name} must be {RANGE_TEXT}")
    return utc


def stats_range(start: datetime | None, end: datetime | None, granularity: Granularity, now: datetime) -> StatsRange:
    """The hours from `start` (default: `end` minus 30 days) to `end` (default: now, this hour
    included), whole hours; an error names the parameter (`from`, `to`)."""
    start, end = _checked("from", start), _checked("to", end)
    end = end if end is not None else now
    if end > now + MAX_AHEAD:  # no clicks are there yet
        raise InvalidLinkOption("to", "to must not be more than a day ahead")
    start = start if start is not None else end - DEFAULT_RANGE
    if start >= end:
        raise InvalidLinkOption("from", "from must be before to")
    if end - start > MAX_RANGE[granularity]:
        days = MAX_RANGE[granularity].days
        raise InvalidLinkOption("to", f"{SERIES[granularity]} covers at most {days} days: narrow from/to")
    hour_start = start.replace(minute=0, second=0, microsecond=0)
    hour_end = end.replace(minute=0, second=0, microsecond=0)
    if hour_end < end:
        hour_end += timedelta(hours=1)
    return StatsRange(hour_start, hour_end, granularity)


def _bucket_of(hour: str, granularity: Granularity) -> str:
    return hour if granularity == "hour" else hour[:10]


def _bucket_starts(span: StatsRange) -> list[datetime]:
    step = timedelta(hours=1) if span.granularity == "hour" else timedelta(days=1)
    current = span.start if span.granularity == "hour" else span.start.replace(hour=0)
    starts = []
    while current < span.end:
        starts.append(current)
        current += step
    return starts


def link_report(code: str, hours: list[dict[str, Any]], span: StatsRange) -> dict[str, Any]:
    """The stats of `code` from its hourly counters (as the click-stats store reads them)."""
    series: dict[str, Counter[str]] = {}
    sketches: dict[str, set[int]] = {}
    daily_sketches: dict[str, set[int]] = {}
    dimensions: dict[str, Counter[str]] = {dimension: Counter() for dimension in DIMENSIONS}
    for item in hours:
        bucket = _bucket_of(item["hour"], span.granularity)
        counts = series.setdefault(bucket, Counter())
        counts["clicks"] += item.get("clicks", 0)
        counts["bots"] += item.get("bots", 0)
        sketches.setdefault(bucket, set()).update(item["visitors"])
        daily_sketches.setdefault(item["hour"][:10], set()).update(item["visitors"])
        for name, value in item.items():
            dimension, _, dimension_value = name.partition("#")
            if dimension in dimensions and dimension_value:
                dimensions[dimension][dimension_value] += value
    points = []
    for start in _bucket_starts(span):
        key = start.strftime(HOUR_FORMAT) if span.granularity == "hour" else start.strftime("%Y-%m-%d")
        counts = series.get(key, Counter())
        points.append(
            {
                "start": start.strftime("%Y-%m-%dT%H:00:00Z"),
                "clicks": counts["clicks"],
                "bots": counts["bots"],
                "unique_visitors": estimate(sketches.get(key, ())),
            }
        )
    return {
        "code": code,
        "from": span.start.strftime("%Y-%m-%dT%H:00:00Z"),
        "to": span.end.strftime("%Y-%m-%dT%H:00:00Z"),
        "granularity": span.granularity,
        "clicks": sum(point["clicks"] for point in points),
        "bots": sum(point["bots"] for point in points),
        "unique_visitors": sum(estimate(sketch) for sketch in daily_sketches.values()),
        "series": points,
        "top": {
            dimension: [{"value": value, "clicks": count} for value, count in counts.most_common(TOP_VALUES)]
            for dimension, counts in dimensions.items()
        },
    }


def series_csv(report: dict[str, Any]) -> str:
    lines = ["start,clicks,bots,unique_visitors"]
    lines.extend(f"{p['start']},{p['clicks']},{p['bots']},{p['unique_visitors']}" for p in report["series"])
    return "\r\n".join(lines) + "\r\n"
