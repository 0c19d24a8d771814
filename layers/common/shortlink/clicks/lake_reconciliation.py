"""The click lake against the counters: per link and UTC day, the clicks each counted, and where
they differ. The lake counts each click id once (its queries), the counters each pack once (the
ledger): a difference is a row lost, a row counted twice, or clicks still on their way."""

from collections.abc import Mapping
from dataclasses import dataclass

from shortlink.links.model import logged_key

LinkDay = tuple[str, str]  # (the link as the lake names it: shortlink.links.model.logged_key, day)


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
