"""Ingest's counting of a batch: its packs' clicks grouped per link and UTC day
(shortlink.clicks.tally), each group counted exactly once through the click counter (one write or
one transaction per 64 packs, counters and ledger together: adapters/dynamodb/click_counter.py),
and the counted packs' rows sent to the click lake (shortlink.clicks.lake_delivery). A group that
cannot be written fails alone: its packs are offered again, and the ledger skips every pack that
was in fact counted."""

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from shortlink.clicks.events import ClickPack
from shortlink.clicks.lake_delivery import undelivered
from shortlink.clicks.lake_rows import ClickLake
from shortlink.clicks.tally import PackPart, parts_per_link_day
from shortlink.errors import StorageUnavailable

logger = logging.getLogger("shortlink.clicks")


class ClickCounter(Protocol):
    def count(self, code: str, day: str, parts: Sequence[PackPart]) -> int:
        """Count these parts of one link's day, each exactly once however often it is offered;
        how many clicks were new (StorageUnavailable if they could not all be written)."""

    def is_hot(self, code: str, day: str) -> bool:
        """Whether this environment has counted the link's day on the hot path."""


@dataclass
class BatchCount:
    """What counting a batch did: the packs to offer again, and the figures of its metrics."""

    failed: list[str] = field(default_factory=list)  # pack ids
    counted: int = 0
    skipped: int = 0  # clicks of packs counted before (redelivered)
    hot_link_days: int = 0
    oldest_click: datetime | None = None
    redirect_counts: Counter[str] = field(default_factory=Counter)  # the redirect's metrics its clicks carry
    new_per_code: Counter[str] = field(default_factory=Counter)  # newly counted only: a redelivery adds nothing


def count_packs(packs: Sequence[ClickPack], counter: ClickCounter, lake: ClickLake | None, region: str) -> BatchCount:
    """Count the packs' clicks, each exactly once, and send their rows to `lake` (None: the stack
    has none) as counted in `region`."""
    result = BatchCount()
    recorded: list[PackPart] = []  # counted now or before (a redelivery): the click lake's rows
    for (code, day), parts in sorted(parts_per_link_day(packs).items()):
        try:
            new = counter.count(code, day, list(parts.values()))
        except StorageUnavailable:
            # Only this group's packs come back; the others are counted, and the ledger keeps them so.
            # Without the code: a private link's code is its capability, and logs must not hold it.
            logger.exception("clicks not counted", extra={"day": day, "packs": len(parts)})
            result.failed.extend(parts)
            continue
        recorded.extend(parts.values())
        clicks = [click for part in parts.values() for click in part.clicks]
        result.counted += new
        result.new_per_code[code] += new
        result.skipped += len(clicks) - new
        result.hot_link_days += counter.is_hot(code, day)
        if clicks:  # a part may hold orphan visits alone
            first = min(click.at for click in clicks)
            oldest = result.oldest_click
            result.oldest_click = first if oldest is None or first < oldest else oldest
        for click in clicks:
            result.redirect_counts.update(click.counts)
    if unsent := undelivered(lake, recorded, region):  # offered again: see lake_delivery
        logger.error("clicks not sent to the click lake", extra={"packs": len(unsent)})
        result.failed.extend(unsent)
    return result
