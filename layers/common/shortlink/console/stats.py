"""A link's stats and the account's overview, as pages and as CSV."""

import re
from datetime import datetime, timedelta
from typing import Any, cast
from urllib.parse import urlencode

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.clicks.account_stats import account_stats
from shortlink.clicks.stats import Granularity, link_report, series_csv, span_days, stats_range
from shortlink.console.plumbing import Refused, now, query, requested, requiring, shown
from shortlink.errors import InvalidLinkOption
from shortlink.links.model import Link
from shortlink.people.actors import Actor
from shortlink.schemas.links import TAG_PATTERN
from shortlink.wiring import click_stats, short_domains

RANGES = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30), "90d": timedelta(days=90)}

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def chosen_range() -> tuple[str, Granularity, datetime | None, datetime | None]:
    """The stats range the page asks for: a preset, or custom from/to (UTC, as the page's
    script sends them)."""
    preset = query("range") or "7d"
    granularity = query("granularity") or ("hour" if preset == "24h" else "day")
    if granularity not in ("hour", "day"):
        raise Refused(400, "granularity is hour or day")
    if preset in RANGES:
        return preset, cast(Granularity, granularity), now() - RANGES[preset], None
    if preset != "custom":
        raise Refused(400, f"range is one of {', '.join(RANGES)} or custom")
    try:
        moments = [datetime.fromisoformat(query(name) or f"{query(name + '_local')}Z") for name in ("from", "to")]
    except ValueError:
        raise Refused(400, "from and to are date-times, such as 2026-11-01T00:00Z") from None
    return preset, cast(Granularity, granularity), moments[0], moments[1]


def stats_report(link: Link, granularity: Granularity, start: datetime | None, end: datetime | None) -> dict[str, Any]:
    """A link's stats over the range, as the API's stats route reports them (read by its key)."""
    span = stats_range(start, end, granularity, now())
    first_day, last_day = span_days(span)
    days = click_stats().days(link.key, first_day, last_day, hourly=span.granularity == "hour")
    return link_report(link.code, days, span)


@router.get("/console/links/<code>/stats.csv")
def link_stats_csv(code: str) -> Response[Any]:
    _, key = requiring("stats:read")
    link = requested(code, key)
    _, granularity, start, end = chosen_range()
    report = stats_report(link, granularity, start, end)
    headers = {"Content-Disposition": f'attachment; filename="{link.code}-stats.csv"', "Cache-Control": "no-store"}
    return Response(200, "text/csv; charset=utf-8", series_csv(report), headers=headers)


def chosen_tag() -> str | None:
    tag = query("tag")
    if tag and not re.fullmatch(TAG_PATTERN, tag):
        raise Refused(400, "a tag is 1-32 letters, digits, '_' or '-'")
    return tag or None


def overview_report(
    owner: str, tag: str | None, granularity: Granularity, start: datetime | None, end: datetime | None
) -> dict[str, Any]:
    """The account's (or a tag's) stats over the range, as `GET /stats` reports them."""
    span = stats_range(start, end, granularity, now())
    return account_stats(click_stats(), owner, tag, span, short_domains().public_name)


def overview_of(key: Actor, report: dict[str, Any]) -> dict[str, Any]:
    """The overview a key may read: the top links name codes, which need links:read (as GET /stats)."""
    return report if key.allows("links:read") else {**report, "top_links": []}


@router.get("/console/overview")
def overview() -> Response[Any]:
    """The account's clicks: totals, the series, its top links and each dimension's top values."""
    current, key = requiring("stats:read")
    tag = chosen_tag()
    preset, granularity, start, end = chosen_range()
    report, range_error = None, None
    try:
        report = overview_of(key, overview_report(key.owner, tag, granularity, start, end))
    except InvalidLinkOption as error:
        range_error = str(error)
    chosen = {"range": preset, "granularity": granularity, "from": query("from"), "to": query("to")}
    return shown(
        "overview.html",
        key,
        current,
        422 if range_error else 200,
        report=report,
        range_error=range_error,
        tag=tag or "",
        preset=preset,
        granularity=granularity,
        stats_query=urlencode({**chosen, **({"tag": tag} if tag else {})}),
        untagged_query=urlencode(chosen),
        default_domain=short_domains().public_name(""),  # its links' pages need no ?domain=
    )


@router.get("/console/overview/stats.csv")
def overview_csv() -> Response[Any]:
    _, key = requiring("stats:read")
    tag = chosen_tag()
    _, granularity, start, end = chosen_range()
    report = overview_report(key.owner, tag, granularity, start, end)
    filename = f"tag-{tag}-stats.csv" if tag else "stats.csv"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"}
    return Response(200, "text/csv; charset=utf-8", series_csv(report), headers=headers)
