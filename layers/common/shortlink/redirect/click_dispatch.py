"""Holds a redirect's clicks, orphan visits and metrics during an invocation, and hands them on
when the handler is done: to the redirect's extension in Lambda (shortlink.redirect.click_extension,
which also makes the dispatcher), which sends them after the visitor has the response, or sent
inline elsewhere.

A click is recorded with the request the redirect read (shortlink.redirect.request); its event
is built from that request after the response (shortlink.redirect.click_events).
"""

import logging
import os
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from shortlink.links.model import Link
from shortlink.redirect.click_sending import send
from shortlink.redirect.request import RedirectRequest

if TYPE_CHECKING:
    # Loaded by the first click's work, after the response: never at init, which a visitor waits for.
    from shortlink.clicks.events import ClickEvent, ClickPublisher
    from shortlink.redirect.click_events import ClickReading
    from shortlink.settings.metrics import RedirectMetricSettings

logger = logging.getLogger("shortlink.clicks")


class PendingWork:
    """What one invocation leaves for after its response. A click is kept as (sequence number,
    code, epoch seconds, the request, the destination, the link, whether the link came from the
    cache): its id (`click_id`) and time are fixed when it is recorded, its id's text, its event
    and its cache outcome made after the response (shortlink.redirect.click_events). An orphan
    visit is (code, outcome, epoch seconds)."""

    __slots__ = ("clicks", "counts", "id_prefix", "orphans")
    clicks: list[tuple[int, str, float, RedirectRequest, str, Link | None, bool | None]]
    orphans: list[tuple[str, str, float]] | None
    counts: dict[str, int] | None
    id_prefix: str

    def __init__(self, id_prefix: str = "") -> None:
        # Not annotated here: each invocation makes one, and an attribute's annotation is
        # evaluated at every call. Orphans and counts are made on first use: a hit has neither.
        self.clicks = []
        self.orphans = self.counts = None
        self.id_prefix = id_prefix

    def click_id(self, sequence: int) -> str:
        """The id of this work's click numbered `sequence`: unique across environments."""
        return f"{self.id_prefix}{sequence:x}"


class ClickDispatcher(Hashable, Protocol):  # hashable: the composition root keeps what it built per dispatcher
    def record_click(
        self,
        code: str,
        request: RedirectRequest,
        destination: str = "",
        link: Link | None = None,
        from_cache: bool | None = None,
    ) -> None:
        """Hold a click on `code`, now, made by `request` (as the redirect read it) and sent to
        `destination` (its campaign is read from it), for after the response; `link` (as
        followed) says whose it is and its tags at click time. `from_cache` counts one of
        CacheHits (True) or CacheMisses (False) with it, after the response: a hit makes no
        second call for its metric."""

    def record_orphan(self, code: str, outcome: str) -> None:
        """Hold a follow of `code` that found no live link (outcome: see clicks.ORPHAN_OUTCOMES)."""

    def count(self, metric: str) -> None:
        """Add one to a metric of the current invocation."""

    def invocation_done(self) -> None:
        """The handler is done: its clicks and metrics may go (call it in a `finally`)."""


def describe(
    work: PendingWork, visitor_salt_root: Callable[[], bytes], click_reading: "Callable[[], ClickReading]"
) -> "tuple[list[ClickEvent], list[tuple[str, str, str]], dict[str, int]]":
    """An invocation's clicks as the stats count them, its orphan visits by hour, and the metrics
    its clicks do not carry. The cache outcome travels with its (first) click, and ingest emits
    it, one metrics record per batch."""
    from shortlink.clicks.events import CARRIED_METRICS, orphan_code
    from shortlink.redirect.click_events import click_from_request, hour_of

    counts = dict(work.counts or {})
    orphans = [(orphan_code(code), outcome, hour_of(at)) for code, outcome, at in work.orphans or ()]
    if not work.clicks:
        return [], orphans, counts
    try:
        salt_root: bytes | None = visitor_salt_root()
    except Exception:
        # Unique visitors are worth a log line, never a lost click.
        logger.exception("visitor salt not loaded: clicks go without a visitor hash")
        salt_root = None
    reading = click_reading()
    clicks = []
    for sequence, code, at, request, destination, link, from_cache in work.clicks:
        click_id = work.click_id(sequence)
        clicks.append(click_from_request(click_id, code, at, request, destination, link, salt_root, reading))
        if from_cache:
            counts["CacheHits"] = counts.get("CacheHits", 0) + 1
        elif from_cache is not None:
            counts["CacheMisses"] = counts.get("CacheMisses", 0) + 1
    carried = {name: counts.pop(name) for name in CARRIED_METRICS & counts.keys()}
    clicks[0] = replace(clicks[0], counts=carried)
    return clicks, orphans, counts


@dataclass(frozen=True, slots=True)
class ClickProviders:
    """What a dispatcher calls after a response, from the composition root, each made on first
    use: the queue's publisher, the root of the visitors' salt, the reading of clicks and the
    redirect's metric settings."""

    publisher: "Callable[[], ClickPublisher]"
    visitor_salt_root: Callable[[], bytes]
    click_reading: "Callable[[], ClickReading]"
    metric_settings: "Callable[[], RedirectMetricSettings]"


class InvocationRecorder:
    """Collects one invocation's clicks, orphan visits and counts; `take` hands them over and
    starts afresh."""

    def __init__(self, providers: ClickProviders) -> None:
        self._providers = providers
        self._pending = PendingWork()
        # Click ids: a random prefix drawn on the first click (never at init, which a snapshot
        # would share) and a sequence: unique, and cheaper than a random id per click.
        self._id_prefix = ""
        self._sequence = 0

    def record_click(
        self,
        code: str,
        request: RedirectRequest,
        destination: str = "",
        link: Link | None = None,
        from_cache: bool | None = None,
    ) -> None:
        pending = self._pending
        if not pending.id_prefix:
            self._id_prefix = pending.id_prefix = os.urandom(12).hex()
        sequence = self._sequence = self._sequence + 1
        pending.clicks.append((sequence, code, time.time(), request, destination, link, from_cache))

    def record_orphan(self, code: str, outcome: str) -> None:
        pending = self._pending
        if pending.orphans is None:
            pending.orphans = []
        pending.orphans.append((code, outcome, time.time()))

    def count(self, metric: str) -> None:
        pending = self._pending
        if pending.counts is None:
            pending.counts = {}
        pending.counts[metric] = pending.counts.get(metric, 0) + 1

    def described(self, work: PendingWork) -> "tuple[list[ClickEvent], list[tuple[str, str, str]], dict[str, int]]":
        """`work` as `describe` has it, with this recorder's providers (after the response)."""
        return describe(work, self._providers.visitor_salt_root, self._providers.click_reading)

    def take(self) -> PendingWork:
        work, self._pending = self._pending, PendingWork(self._id_prefix)
        return work


class InlineDispatcher(InvocationRecorder):
    def invocation_done(self) -> None:
        from shortlink.clicks.packing import HeldClicks, PackingRules

        held = HeldClicks(PackingRules(window_seconds=0, max_clicks=1))
        held.add(*self.described(self.take()))
        send(self._providers.publisher(), held.take(time.monotonic()), self._providers.metric_settings)
