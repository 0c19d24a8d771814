"""An account's stats over a time range (`GET /stats`, the console's overview): a link's report
(shortlink.clicks.stats) of the account's or one tag's days, without the link's code and orphan visits
(those stay each link's own), and its most-clicked links."""

from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from shortlink.clicks.account_tally import OTHER_LINKS, account_subject
from shortlink.clicks.day_counts import DayCounts
from shortlink.clicks.stats import TOP_VALUES, StatsRange, link_report, span_days
from shortlink.clicks.tally import LINK_KEY
from shortlink.domains.model import split_key


class DayCountsSource(Protocol):
    def days(self, code: str, first_day: str, last_day: str, hourly: bool = False) -> list[DayCounts]:
        """The counted days of a link or subject from `first_day` to `last_day`, oldest first."""


def account_stats(
    source: DayCountsSource,
    owner: str,
    tag: str | None,
    span: StatsRange,
    domain_name: Callable[[str], str | None],
) -> dict[str, Any]:
    """The stats of `owner`'s account (its links with `tag`, if given) over `span`: one Query of
    its days, however many links it has."""
    first_day, last_day = span_days(span)
    days = source.days(account_subject(owner, tag), first_day, last_day, hourly=span.granularity == "hour")
    return account_report(tag, days, span, domain_name)


def account_report(
    tag: str | None, days: list[DayCounts], span: StatsRange, domain_name: Callable[[str], str | None]
) -> dict[str, Any]:
    """The stats of an account's days (of its links with `tag`, if given). `top_links` counts
    the whole days the range touches, as `top` does; a link past a day's first TOP_LINKS is
    counted in the totals but not ranked. Each top link shows its code and its domain as
    `domain_name` names a link's domain ("" for the default) to the API."""
    report = link_report("", days, span)
    del report["code"], report["orphans"]
    first_day, last_day = span_days(span)
    prefix = f"{LINK_KEY}#"
    links: Counter[str] = Counter()
    for day in days:
        if first_day <= day.day <= last_day:
            for name, count in day.counters.items():
                if name.startswith(prefix) and name != prefix + OTHER_LINKS:
                    links[name.removeprefix(prefix)] += count
    top_links = []
    for key, count in links.most_common(TOP_VALUES):
        domain, code = split_key(key)
        top_links.append({"code": code, "domain": domain_name(domain), "clicks": count})
    return {"tag": tag, **report, "top_links": top_links}
