"""The links list's glance at each listed link: its people's clicks on each of the last 7 days,
read for the whole page in one batch (BatchGetItem of exactly its day items), drawn as a small
inline SVG line with the numbers as its text; and which links had clicks at all over those days,
from the account's own days (one Query), so that an order by them reads only those links' days."""

from collections.abc import Mapping, Sequence
from typing import Any

from shortlink.clicks.account_tally import OTHER_LINKS, account_subject
from shortlink.clicks.recent_days import GLANCE_COUNTERS, daily_people, glance_days
from shortlink.clicks.tally import link_counter
from shortlink.console.plumbing import now
from shortlink.wiring import click_stats, regions

WIDTH, HEIGHT, PAD = 84, 22, 2


def seven_day_people(keys: Sequence[str], clicked: Mapping[str, set[str]] | None = None) -> dict[str, list[int]]:
    """Each link's (by key) people's clicks per day over the last 7 UTC days, oldest first; with
    `clicked` (clicked_links), reading only the days it names for each link (the others had none)."""
    names = glance_days(now())
    link_days = [(key, day) for key in keys for day in names if clicked is None or day in clicked.get(key, ())]
    if not link_days:
        return {key: [0] * len(names) for key in keys}
    deployment = regions()
    counted = click_stats().counters_of(link_days, deployment.regions or (deployment.region,), GLANCE_COUNTERS)
    return {key: daily_people(counted.get(key, {}), names) for key in keys}


def clicked_links(owner: str) -> dict[str, set[str]] | None:
    """The days (e.g. 2026-11-30) of the owner's links with any click (people's or bots') over the
    last 7 UTC days, by key, as the account's days count them (`lk#<key>`, written by the stream
    aggregator a second or two after ingest); None when the days cannot tell: none counted yet (a
    new account, or a local stack without streams), or a day with more clicked links than it names
    (`(other)`)."""
    names = glance_days(now())
    days = click_stats().day_counters(account_subject(owner), names[0], names[-1])
    if not days or any(day.counters[link_counter(OTHER_LINKS)] for day in days):
        return None
    prefix = link_counter("")
    clicked: dict[str, set[str]] = {}
    for day in days:
        for name, count in day.counters.items():
            if count and name.startswith(prefix):
                clicked.setdefault(name.removeprefix(prefix), set()).add(day.day)
    return clicked


def sparkline(values: list[int]) -> dict[str, Any]:
    """What the list draws for `values`: the line's points in a WIDTH by HEIGHT box (the largest
    value at the top), the total, and the sentence a screen reader reads instead."""
    top = max(values) or 1
    step = (WIDTH - 2 * PAD) / (len(values) - 1)
    points = " ".join(
        f"{PAD + index * step:.1f},{HEIGHT - PAD - value * (HEIGHT - 2 * PAD) / top:.1f}"
        for index, value in enumerate(values)
    )
    text = f"{sum(values)} in 7 days; per day, oldest first: {', '.join(str(value) for value in values)}"
    return {"points": points, "total": sum(values), "values": values, "text": text, "width": WIDTH, "height": HEIGHT}
