"""A link's stats over a time range, from its days' counters: totals, an hourly or daily series,
and the top values of each dimension. Unique visitors are estimated per day (the visitor hash's
salt changes daily, so nobody is followed across days); a range's total is the sum of its days'."""

import csv
import io
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from shortlink.accepted_moments import RANGE_TEXT, in_utc
from shortlink.clicks.agent_classes import PERSON, REPORTED_CLASSES
from shortlink.clicks.day_counts import DayCounts
from shortlink.clicks.events import DIMENSIONS
from shortlink.clicks.orphans import link_orphans
from shortlink.clicks.unique_visitors import REGISTERS, estimate_registers, merge_registers
from shortlink.errors import InvalidLinkOption

Granularity = Literal["hour", "day"]
DEFAULT_RANGE = timedelta(days=30)
# Series length bounds: 31 days of hours (744 points), about 13 months of days.
MAX_RANGE = {"hour": timedelta(days=31), "day": timedelta(days=400)}
SERIES = {"hour": "an hourly series", "day": "a daily series"}
MAX_AHEAD = timedelta(days=1)
TOP_VALUES = 10
# A cell a spreadsheet would run as a formula (OWASP's CSV injection): visitors choose referrers
# and forwarded campaigns, so such a value is written with a leading quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
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


def _point_starts(span: StatsRange) -> list[datetime]:
    step = timedelta(hours=1) if span.granularity == "hour" else timedelta(days=1)
    current = span.start if span.granularity == "hour" else span.start.replace(hour=0)
    starts = []
    while current < span.end:
        starts.append(current)
        current += step
    return starts


def span_days(span: StatsRange) -> tuple[str, str]:
    """The first and last UTC day (e.g. 2026-11-30) the range touches."""
    return span.first_hour[:10], span.last_hour[:10]


def _reported(agents: Counter[str]) -> dict[str, int]:
    return {agent: agents[agent] for agent in REPORTED_CLASSES}


def link_report(code: str, days: list[DayCounts], span: StatsRange) -> dict[str, Any]:
    """The stats of `code` from its days' counters (as the click-stats store reads them, with
    hourly visitor registers for an hourly series). Clicks, bots and people count the range's
    hours; `top` and the clicks per agent class (`agents`: the report's, and a daily point's) count
    the whole days they touch, as both are kept per day: an hourly point has no `agents`."""
    by_day = {day.day: day for day in days}
    in_range: dict[str, list[str]] = {}  # day -> its hours ("14") inside the range
    for moment in _point_starts(StatsRange(span.start, span.end, "hour")):
        in_range.setdefault(moment.strftime("%Y-%m-%d"), []).append(f"{moment.hour:02d}")
    points = []
    for start in _point_starts(span):
        day = by_day.get(start.strftime("%Y-%m-%d"), DayCounts(start.strftime("%Y-%m-%d")))
        hours = [f"{start.hour:02d}"] if span.granularity == "hour" else in_range.get(day.day, [])
        clicks = sum(day.hour(hour)[0] for hour in hours)
        bots = sum(day.hour(hour)[1] for hour in hours)
        if span.granularity == "hour":
            visitors = estimate_registers(day.hour_visitors.get(hours[0], bytearray(REGISTERS)))
        else:
            visitors = estimate_registers(day.day_visitors)
        point: dict[str, Any] = {
            "start": start.strftime("%Y-%m-%dT%H:00:00Z"),
            "clicks": clicks,
            "bots": bots,
            "unique_visitors": visitors,
            "repeat_clicks": sum(day.repeats(hour) for hour in hours),
            "people": clicks - bots,
        }
        if span.granularity == "day":  # classes are counted per day (shortlink.clicks.tally.agent_counter)
            point["agents"] = _reported(day.agents())
        points.append(point)
    dimensions: dict[str, Counter[str]] = {dimension: Counter() for dimension in DIMENSIONS}
    unique_visitors = 0
    whole_days: Counter[str] = Counter()  # the counters of the days the range touches
    agents: Counter[str] = Counter()
    for day in days:
        if day.day not in in_range:
            continue
        whole_days.update(day.counters)
        agents.update(day.agents())
        for dimension, counts in day.dimension_values().items():
            dimensions[dimension].update(counts)
        if span.granularity == "hour":
            registers = bytearray(REGISTERS)
            for hour in in_range[day.day]:
                merge_registers(registers, day.hour_visitors.get(hour, bytearray(REGISTERS)))
            unique_visitors += estimate_registers(registers)
        else:
            unique_visitors += estimate_registers(day.day_visitors)
    return {
        "code": code,
        "from": span.start.strftime("%Y-%m-%dT%H:00:00Z"),
        "to": span.end.strftime("%Y-%m-%dT%H:00:00Z"),
        "granularity": span.granularity,
        "clicks": sum(point["clicks"] for point in points),
        "bots": sum(point["bots"] for point in points),
        "unique_visitors": unique_visitors,
        "repeat_clicks": sum(point["repeat_clicks"] for point in points),
        "people": sum(point["people"] for point in points),
        "agents": _reported(agents),
        "series": points,
        "top": {
            dimension: [{"value": value, "clicks": count} for value, count in counts.most_common(TOP_VALUES)]
            for dimension, counts in dimensions.items()
        },
        "orphans": link_orphans(whole_days),
    }


# The series' columns: those from before agent classes first, where existing readers find them,
# then people and each bot class (shortlink.clicks.agent_classes).
POINT_COLUMNS = ("start", "clicks", "bots", "unique_visitors", "repeat_clicks", "people")
BOT_COLUMNS = tuple(agent for agent in REPORTED_CLASSES if agent != PERSON)


def series_csv(report: dict[str, Any]) -> str:
    """The series of a report, a row per point; after people, the clicks of each bot class (a
    daily series' only: an hourly row leaves them empty)."""
    lines = [",".join((*POINT_COLUMNS, *BOT_COLUMNS))]
    for point in report["series"]:
        classes = point.get("agents") or dict.fromkeys(BOT_COLUMNS, "")
        cells = [*(point[name] for name in POINT_COLUMNS), *(classes[name] for name in BOT_COLUMNS)]
        lines.append(",".join(str(cell) for cell in cells))
    return "\r\n".join(lines) + "\r\n"


def spreadsheet_cell(value: str) -> str:
    """`value` as a CSV cell a spreadsheet shows as text: one that would start a formula gets a
    leading quote. Every CSV the project writes passes its text cells through here."""
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


def dimension_csv(report: dict[str, Any], dimension: str) -> str:
    """The top values of one dimension of a report (e.g. campaign), a row each with its clicks."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow((dimension, "clicks"))
    for top in report["top"][dimension]:
        value = top["value"]
        writer.writerow((spreadsheet_cell(value), top["clicks"]))
    return out.getvalue()
