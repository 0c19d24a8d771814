"""What a batch of click packs adds to each link's day: the unit ingest counts exactly once.

A pack's clicks of one link and one UTC day form a *part*; a part is counted whole or not at
all, and its ledger entry is the pack's 8-byte digest (a pack of 1,000 clicks is one entry, not
1,000). A day's counters are named here, as the click-stats items store them: day totals
(`clicks`, `bots`, `repeats`), the hour-by-hour series (`clicks@14`, `bots@14`, `repeats@14`:
14:00-14:59 UTC; each only once it counts one), the day's bots per class (`bots#crawler`: see
`agent_counter`) and one number per dimension value for the day (`cc#DE` for country DE,
`dv#mobile`, ...: see `dimension_counter`).
"""

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC

from shortlink.clicks.agent_classes import BOT_CLASSES
from shortlink.clicks.events import DIMENSIONS, ClickEvent, ClickPack, OrphanVisit
from shortlink.clicks.orphans import WINDOWS_PER_HOUR, counted_under, orphan_day, orphan_hour_start
from shortlink.clicks.unique_visitors import sketch_element

# Dimensions whose values visitors choose (any Referer, any Accept-Language, a forwarded
# utm_campaign). If their variety fills an item, the rest of its clicks are counted under OTHER
# for them, still exactly once.
OPEN_DIMENSIONS = frozenset({"referrer", "language", "campaign"})
OTHER = "(other)"
# The ledger of a busy day is kept in items of this many seconds of click time: the packs of a
# batch (formed within a second or two of each other) fall in one or two of them.
LEDGER_WINDOW_SECONDS = 10
# A day's dimension counters are named by a short key: a busy day has about a hundred of them,
# and a year of stats reads them all (the full names made ~40 % of a day item's bytes).
DIMENSION_KEYS = {
    "country": "cc",
    "device": "dv",
    "browser": "br",
    "os": "os",
    "referrer": "rf",
    "language": "ln",
    "campaign": "cp",
    "answered": "an",
}
DIMENSION_OF_KEY = {key: dimension for dimension, key in DIMENSION_KEYS.items()}
LINK_KEY = "lk"


@dataclass(frozen=True)
class PackPart:
    """The clicks and orphan visits of one pack for one link and day."""

    pack_id: str
    clicks: tuple[ClickEvent, ...]
    orphans: tuple[OrphanVisit, ...] = ()

    @property
    def digest(self) -> bytes:
        return pack_digest(self.pack_id)

    @property
    def ledger_window(self) -> int:
        """Which ledger window records this part: a function of the pack's content alone, so
        that every redelivery of it is checked where it was recorded."""
        if self.clicks:
            return int(min(click.at.timestamp() for click in self.clicks)) // LEDGER_WINDOW_SECONDS
        hour = min(orphan_hour_start(orphan) for orphan in self.orphans) // LEDGER_WINDOW_SECONDS
        return hour + int.from_bytes(self.digest) % WINDOWS_PER_HOUR

    @property
    def visits(self) -> int:
        """Clicks and orphan visits: what the part adds to its day's item."""
        return len(self.clicks) + sum(orphan.count for orphan in self.orphans)


def pack_digest(pack_id: str) -> bytes:
    return hashlib.blake2b(pack_id.encode(), digest_size=8).digest()


def day_of(click: ClickEvent) -> str:
    return click.at.astimezone(UTC).strftime("%Y-%m-%d")


def parts_per_link_day(packs: Iterable[ClickPack]) -> dict[tuple[str, str], dict[str, PackPart]]:
    """The parts of a batch per (link, day), one per pack id (a pack delivered twice in one
    batch is one part): a batch costs writes per link and day, never per click or pack. Orphan
    visits are parts of their link's day and of the stack's (shortlink.clicks.orphans)."""
    grouped: dict[tuple[str, str], dict[str, PackPart]] = defaultdict(dict)
    for pack in packs:
        mine: dict[tuple[str, str], list[ClickEvent]] = defaultdict(list)
        orphans: dict[tuple[str, str], list[OrphanVisit]] = defaultdict(list)
        for click in pack.clicks:
            mine[(click.code, day_of(click))].append(click)
        for orphan in pack.orphans:
            for code in counted_under(orphan):
                orphans[(code, orphan_day(orphan))].append(orphan)
        for key in mine.keys() | orphans.keys():
            part = PackPart(pack.pack_id, tuple(mine.get(key, ())), tuple(orphans.get(key, ())))
            grouped[key].setdefault(pack.pack_id, part)
    return dict(grouped)


def dimension_counter(dimension: str, value: str) -> str:
    """The counter of one dimension's value, e.g. `cc#DE` for country DE."""
    return f"{DIMENSION_KEYS[dimension]}#{value}"


def agent_counter(agent: str) -> str:
    """The counter of one day's bots of a class, e.g. `bots#crawler`. People are the day's clicks
    less its bots; bots counted before classes are its bots less their classes'. Per day, not per
    hour: an hour's six classes took more of a year's stats read than the hourly series itself."""
    return f"bots#{agent}"


def link_counter(code: str) -> str:
    """An account day's counter of one of its links, e.g. `lk#KgsUc4V`."""
    return f"{LINK_KEY}#{code}"


def hour_of(click: ClickEvent) -> str:
    """The click's hour of its day, e.g. "14"."""
    return f"{click.at.astimezone(UTC).hour:02d}"


def counter_increments(clicks: Iterable[ClickEvent], coarse: bool = False) -> Counter[str]:
    """What these clicks add to their day's counters; `coarse` counts the open dimensions under OTHER."""
    counts: Counter[str] = Counter()
    for click in clicks:
        hour = hour_of(click)
        counts["clicks"] += 1
        counts[f"clicks@{hour}"] += 1
        if click.bot:
            counts["bots"] += 1
            counts[f"bots@{hour}"] += 1
            if click.agent in BOT_CLASSES:
                counts[agent_counter(click.agent)] += 1
        if click.repeat:
            counts["repeats"] += 1
            counts[f"repeats@{hour}"] += 1
        for dimension in DIMENSIONS:
            value = OTHER if coarse and dimension in OPEN_DIMENSIONS else getattr(click, dimension)
            counts[dimension_counter(dimension, value)] += 1
    return counts


def visitor_elements(clicks: Iterable[ClickEvent]) -> dict[str, set[int]]:
    """The unique-visitor sketch elements of these clicks per hour ("14"); bots are not visitors."""
    elements: dict[str, set[int]] = defaultdict(set)
    for click in clicks:
        if click.visitor and not click.bot:
            elements[hour_of(click)].add(sketch_element(click.visitor))
    return dict(elements)
