"""An account's stats over a time range (`GET /stats`): a link's report (shortlink.stats) of the
account's or one tag's days, without the link's code, and its most-clicked links."""

from collections import Counter
from typing import Any

from shortlink.account_tally import OTHER_LINKS
from shortlink.click_tally import LINK_KEY
from shortlink.day_counts import DayCounts
from shortlink.stats import TOP_VALUES, StatsRange, link_report, span_days


def account_report(tag: str | None, days: list[DayCounts], span: StatsRange) -> dict[str, Any]:
    """The stats of an account's days (of its links with `tag`, if given). `top_links` counts
    the whole days the range touches, as `top` does; a link past a day's first TOP_LINKS is
    counted in the totals but not ranked."""
    report = link_report("", days, span)
    del report["code"]
    first_day, last_day = span_days(span)
    prefix = f"{LINK_KEY}#"
    links: Counter[str] = Counter()
    for day in days:
        if first_day <= day.day <= last_day:
            for name, count in day.counters.items():
                if name.startswith(prefix) and name != prefix + OTHER_LINKS:
                    links[name.removeprefix(prefix)] += count
    top_links = [{"code": code, "clicks": count} for code, count in links.most_common(TOP_VALUES)]
    return {"tag": tag, **report, "top_links": top_links}
