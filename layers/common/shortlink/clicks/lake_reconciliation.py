"""The click lake against the counters: per link and UTC day, the clicks each counted, and where
they differ. The lake counts each click id once (its queries), the counters each pack once (the
ledger): a difference is a row lost, a row counted twice, or clicks still on their way."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from shortlink.links.model import logged_key

LinkDay = tuple[str, str]  # (the link as the lake names it: shortlink.links.model.logged_key, day)

# The lake's clicks per link and day, each click id once (the named query clicks-per-link-day):
# DuckDB and Athena both take the first and last day as its `?` parameters.
CLICKS_PER_LINK_DAY_SQL = (
    "SELECT link, day, count(DISTINCT click_id) AS clicks FROM clicks WHERE day BETWEEN ? AND ? "
    "GROUP BY link, day ORDER BY link, day"
)


class LakeLinkDays(Protocol):
    def clicks_per_link_day(self, first: str, last: str) -> Mapping[LinkDay, int]:
        """The lake's clicks per (link as it names it, day) of the days from `first` to `last`."""
        ...


class CountedLinkDays(Protocol):
    def clicks_per_link_day(self, first: str, last: str) -> Mapping[LinkDay, int]:
        """The counters' clicks per (link key, day) of the days from `first` to `last`."""
        ...


@dataclass(frozen=True, order=True)
class Difference:
    link: str
    day: str
    lake: int
    counters: int


def lake_link_days(counted: Mapping[LinkDay, int]) -> dict[LinkDay, int]:
    """The counters' clicks per (link key, day) named as the lake names them (private codes hashed)."""
    named: dict[LinkDay, int] = {}
    for (key, day), clicks in counted.items():
        link = (logged_key(key), day)
        named[link] = named.get(link, 0) + clicks
    return named


def differences(lake: Mapping[LinkDay, int], counters: Mapping[LinkDay, int]) -> list[Difference]:
    """Every (link, day) whose clicks differ, in order; none when the lake holds exactly the counted clicks."""
    named = lake_link_days(counters)
    return sorted(
        Difference(link, day, lake.get((link, day), 0), named.get((link, day), 0))
        for link, day in lake.keys() | named.keys()
        if lake.get((link, day), 0) != named.get((link, day), 0)
    )


def reconcile(lake: LakeLinkDays, counters: CountedLinkDays, first: str, last: str) -> list[Difference]:
    """The differences between the lake and the counters over the days from `first` to `last`."""
    return differences(lake.clicks_per_link_day(first, last), counters.clicks_per_link_day(first, last))
