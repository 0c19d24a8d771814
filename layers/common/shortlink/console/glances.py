"""The links list's glance at each listed link: its people's clicks on each of the last 7 days,
read for the whole page in one batch (BatchGetItem of exactly its day items), drawn as a small
inline SVG line with the numbers as its text."""

from typing import Any

from shortlink.clicks.recent_days import GLANCE_COUNTERS, daily_people, glance_days
from shortlink.console.plumbing import now
from shortlink.links.model import Link
from shortlink.wiring import click_stats, regions

WIDTH, HEIGHT, PAD = 84, 22, 2


def seven_day_people(links: list[Link]) -> dict[str, list[int]]:
    """Each link's (by key) people's clicks per day over the last 7 UTC days, oldest first."""
    if not links:
        return {}
    names = glance_days(now())
    deployment = regions()
    counted = click_stats().counters_of_days(
        [link.key for link in links], names, deployment.regions or (deployment.region,), GLANCE_COUNTERS
    )
    return {key: daily_people(days, names) for key, days in counted.items()}


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
