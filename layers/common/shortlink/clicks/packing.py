"""Clicks held between a redirect environment's invocations and packed into queue messages: when
they go and what a message holds. No threads and no AWS here (shortlink.redirect.click_extension
runs it).

An environment that sent nothing for a window sends at once: an idle one queues each click
promptly. One that sent less than a window ago holds what comes, until the window has passed or
it holds `max_clicks`: under steady traffic it sends one message per window, whatever the rate.
Orphan visits are held as counts per (code, outcome, hour), and a flood of distinct codes is
counted under one overflow code per outcome and hour, so it never costs more messages.
"""

import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from shortlink.clicks.events import (
    MAX_PACK_BYTES,
    MAX_PACK_CLICKS,
    MAX_PACK_ORPHANS,
    ORPHAN_OUTCOMES,
    OVERFLOW_ORPHAN_CODE,
    ClickEvent,
    ClickPack,
    OrphanVisit,
)

# Distinct attempted codes held at once; the rest of a pack's room is for the overflow entries
# (one per outcome and hour, and what is held spans at most two hours).
MAX_HELD_ORPHAN_CODES = MAX_PACK_ORPHANS - 2 * len(ORPHAN_OUTCOMES)
# What a pack's `links` entry adds besides the code and the owner's JSON: `,"links":{` once, and
# per link its quotes, colon and comma.
LINK_ENTRY_SYNTAX = len(',"links":{}') + len('"":,')


@dataclass(frozen=True)
class PackingRules:
    window_seconds: float
    max_clicks: int


@dataclass(frozen=True)
class Flush:
    """What goes when held clicks are due: the packs to queue, the metrics to emit."""

    packs: list[ClickPack]
    counts: Counter[str] = field(default_factory=Counter)


def form_packs(clicks: Sequence[ClickEvent], orphans: Sequence[OrphanVisit]) -> list[ClickPack]:
    """Clicks and orphan visits in as few packs as SQS takes, each with an id of its own, fixed
    here and kept across every send of it."""
    packs = []
    orphan_chunks = [
        tuple(orphans[start : start + MAX_PACK_ORPHANS]) for start in range(0, len(orphans), MAX_PACK_ORPHANS)
    ]
    taken = 0
    while taken < len(clicks) or orphan_chunks:
        pack_id = os.urandom(16).hex()  # not uuid: its import would be paid at the redirect's init
        pack_orphans = orphan_chunks.pop(0) if orphan_chunks else ()
        size = len(ClickPack(pack_id, (), pack_orphans).to_json())  # ASCII: characters are bytes
        first = taken
        owned: set[str] = set()  # links whose owner and tags the pack's `links` says already
        while taken < len(clicks) and taken - first < MAX_PACK_CLICKS:
            click = clicks[taken]
            # A click in full (owner and tags included) and its comma, and the first of a link
            # its entry in `links` too: its code, quotes, colon, braces, comma.
            grown = size + len(click.to_json()) + (taken > first)
            if click.owner and click.code not in owned:
                grown += len(click.code) + len(json.dumps(click.link_owner.to_dict())) + LINK_ENTRY_SYNTAX
            if grown > MAX_PACK_BYTES and taken > first:
                break
            size = grown
            taken += 1
            if click.owner:
                owned.add(click.code)
        packs.append(ClickPack(pack_id, tuple(clicks[first:taken]), pack_orphans))
    return packs


class HeldClicks:
    """One environment's clicks, orphan visits and metrics not sent yet."""

    def __init__(self, rules: PackingRules) -> None:
        self.rules = rules
        self._clicks: list[ClickEvent] = []
        self._orphans: dict[tuple[str, str, str], int] = {}
        self._counts: Counter[str] = Counter()
        self._last_sent = -math.inf

    def add(
        self, clicks: Iterable[ClickEvent], orphans: Iterable[tuple[str, str, str]], counts: Mapping[str, int]
    ) -> None:
        """Hold clicks, orphan visits as (code, outcome, hour), and metric counts."""
        self._clicks.extend(clicks)
        for code, outcome, hour in orphans:
            key = (code, outcome, hour)
            if key not in self._orphans and len(self._orphans) >= MAX_HELD_ORPHAN_CODES:
                key = (OVERFLOW_ORPHAN_CODE, outcome, hour)
            self._orphans[key] = self._orphans.get(key, 0) + 1
        self._counts.update(counts)

    @property
    def clicks(self) -> int:
        return len(self._clicks)

    def due_at(self) -> float | None:
        """When what is held is due by time alone; None when nothing is held."""
        if not (self._clicks or self._orphans or self._counts):
            return None
        return self._last_sent + self.rules.window_seconds

    def due(self, now: float) -> bool:
        due_at = self.due_at()
        return due_at is not None and (now >= due_at or len(self._clicks) >= self.rules.max_clicks)

    def take(self, now: float) -> Flush:
        """Everything held, packed; holding starts afresh, and the window from now."""
        orphans = [OrphanVisit(code, outcome, hour, count) for (code, outcome, hour), count in self._orphans.items()]
        flush = Flush(form_packs(self._clicks, orphans), self._counts)
        self._clicks, self._orphans, self._counts = [], {}, Counter()
        self._last_sent = now
        return flush
