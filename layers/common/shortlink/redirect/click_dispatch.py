"""Sends click packs after the visitor has the redirect.

In Lambda the environment freezes once the handler returns, so a plain background thread would
not run. An internal extension does: a thread in the runtime process that registers with the
Extensions API at init, and on each invocation waits for the handler's work, describes its
clicks, sends what is due (shortlink.clicks.packing) and only then asks for the next event.
Lambda sends the response as soon as the handler returns and keeps the environment alive until
the extension asks again; the visitor never waits for SQS.

Held clicks must outlive the environment. Internal extensions cannot register for SHUTDOWN, but
with one registered Lambda sends the runtime SIGTERM before it ends the environment and waits
about 500 ms (Python 3.12+ runtimes deliver it to a handler): the handler here sends what is
held then. A handler about to time out makes the extension send what is held before the
deadline. Only a crash without either (out of memory) loses what was held: at most one window,
and at most `max_clicks`, of this environment's clicks.

Outside Lambda (no Extensions API) clicks are sent inline at the end of the invocation.
"""

import json
import logging
import os
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import asdict, replace
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from shortlink.domains.model import split_key
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link, may_be_private
from shortlink.redirect import metrics as deferred_metrics
from shortlink.redirect.lambda_extensions import EXTENSION_NAME, ExtensionsClient, LambdaExtensionsApi
from shortlink.redirect.request import RedirectRequest

if TYPE_CHECKING:
    # Loaded by the first click's work, after the response: never at init, which a visitor waits for.
    from shortlink.clicks.events import ClickEvent, ClickPack, ClickPublisher
    from shortlink.clicks.packing import Flush, HeldClicks, PackingRules
    from shortlink.redirect.click_events import ClickReading
    from shortlink.settings.metrics import RedirectMetricSettings

logger = logging.getLogger("shortlink.clicks")

# The marker of a click that could not be queued; `python -m tools.operators.replay_clicks` looks for it.
LOST_CLICK_EVENT = "click_not_queued"
SEND_ATTEMPTS = 3
RETRY_PAUSE_SECONDS = 0.05
# Lambda gives a runtime with an internal extension about 500 ms between SIGTERM and SIGKILL.
SHUTDOWN_BUDGET_SECONDS = 0.4
# A handler this close to its deadline is about to be stopped, and this process with it.
TIMEOUT_MARGIN_SECONDS = 0.5
# Woken this much later than asked, the environment was frozen: the invocation that thawed it
# sends what is due when it ends, rather than a send racing its handler.
FROZEN_SLACK_SECONDS = 1.0


# A click's request: as the redirect read it, or a plain hit's API Gateway event, read after the
# response (shortlink.redirect.request).
ClickRequest = RedirectRequest | dict[str, Any]


class PendingWork:
    """What one invocation leaves for after its response. A click is kept as (click id, code,
    epoch seconds, the request, the destination, the link, whether the link came from the
    cache): its id and time are fixed when it is recorded, its event is built and its cache
    outcome counted after the response (shortlink.redirect.click_events). An orphan visit is
    (code, outcome, epoch seconds)."""

    __slots__ = ("clicks", "counts", "orphans")

    def __init__(self) -> None:
        self.clicks: list[tuple[str, str, float, ClickRequest, str, Link | None, bool | None]] = []
        self.orphans: list[tuple[str, str, float]] = []
        self.counts: dict[str, int] = {}


class ClickDispatcher(Hashable, Protocol):  # hashable: the composition root keeps what it built per dispatcher
    def record_click(
        self,
        code: str,
        request: ClickRequest,
        destination: str = "",
        link: Link | None = None,
        from_cache: bool | None = None,
    ) -> None:
        """Hold a click on `code`, now, made by `request` (as the redirect read it, or a plain
        hit's API Gateway event) and sent to
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


def deliver(publisher: "ClickPublisher", packs: "list[ClickPack]", attempts: int = SEND_ATTEMPTS) -> "list[ClickPack]":
    """Publish each pack, retrying; returns the packs that still failed."""
    lost = []
    for pack in packs:
        for attempt in range(attempts):
            try:
                publisher.publish(pack)
                break
            except StorageUnavailable:
                if attempt + 1 < attempts:
                    time.sleep(RETRY_PAUSE_SECONDS * 2**attempt)
        else:
            lost.append(pack)
    return lost


def log_lost(packs: "list[ClickPack]") -> Counter[str]:
    """One replayable log line per click and orphan visit of each pack (a line per pack could
    exceed a log event's size), naming its pack: a replay re-forms the same pack, which ingest
    counts once even if the send did arrive. Returns the counts the lost clicks carried."""
    carried: Counter[str] = Counter()
    for pack in packs:
        for click in pack.clicks:
            carried.update(click.counts)
            # Without its counts: those are emitted here, a replay must not add them again.
            logged = json.loads(replace(click, counts={}).to_json())
            _log_lost(pack, "click", logged, click.code)
        for orphan in pack.orphans:
            _log_lost(pack, "orphan", asdict(orphan), orphan.code)
    return carried


def _log_lost(pack: "ClickPack", kind: str, record: dict[str, Any], code: str) -> None:
    # A private link's code is its capability: it is never logged, so such a click is lost
    # for good (the line still says one was, for the replay's report).
    entry = {kind: record} if not may_be_private(split_key(code)[1]) else {"unreplayable": kind}
    logger.error(json.dumps({"event": LOST_CLICK_EVENT, "pack": pack.pack_id, **entry}))


def describe(
    work: PendingWork, visitor_salt_root: Callable[[], bytes], click_reading: "Callable[[], ClickReading]"
) -> "tuple[list[ClickEvent], list[tuple[str, str, str]], dict[str, int]]":
    """An invocation's clicks as the stats count them, its orphan visits by hour, and the metrics
    its clicks do not carry. The cache outcome travels with its (first) click, and ingest emits
    it, one metrics record per batch."""
    from shortlink.clicks.events import CARRIED_METRICS, orphan_code
    from shortlink.redirect.click_events import click_from_request, hour_of

    counts = dict(work.counts)
    orphans = [(orphan_code(code), outcome, hour_of(at)) for code, outcome, at in work.orphans]
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
    for click_id, code, at, request, destination, link, from_cache in work.clicks:
        if not isinstance(request, RedirectRequest):  # a plain hit's event
            request = RedirectRequest(request, "GET", code, reading.requests)
        clicks.append(click_from_request(click_id, code, at, request, destination, link, salt_root, reading))
        if from_cache:
            counts["CacheHits"] = counts.get("CacheHits", 0) + 1
        elif from_cache is not None:
            counts["CacheMisses"] = counts.get("CacheMisses", 0) + 1
    carried = {name: counts.pop(name) for name in CARRIED_METRICS & counts.keys()}
    clicks[0] = replace(clicks[0], counts=carried)
    return clicks, orphans, counts


def send(publisher: "ClickPublisher", flush: "Flush", metric_settings: "Callable[[], RedirectMetricSettings]") -> None:
    """Queue a flush's packs, then emit its metrics, and those of its lost clicks."""
    counts = flush.counts
    if flush.packs:
        lost = deliver(publisher, flush.packs)
        if lost:
            counts.update(log_lost(lost))
            counts["ClickDispatchFailures"] = sum(len(pack.clicks) for pack in lost)
    emit(counts, metric_settings)


def emit(counts: Counter[str], metric_settings: "Callable[[], RedirectMetricSettings]") -> None:
    try:
        deferred_metrics.emit(counts, metric_settings)
    except Exception:
        # Metrics are worth a log line, never a lost click or a stuck extension.
        logger.exception("metrics not emitted")


def guarded(work: Callable[..., None], *args: Any) -> None:
    """Run after-response work whose failure must not stop the thread running it."""
    try:
        work(*args)
    except Exception:
        logger.exception("after-response work failed")


class _InvocationRecorder:
    """Collects one invocation's clicks, orphan visits and counts; `_take` hands them over and
    starts afresh."""

    def __init__(
        self,
        publisher: "Callable[[], ClickPublisher]",
        visitor_salt_root: Callable[[], bytes],
        click_reading: "Callable[[], ClickReading]",
        metric_settings: "Callable[[], RedirectMetricSettings]",
    ) -> None:
        self._publisher = publisher
        self._visitor_salt_root = visitor_salt_root
        self._click_reading = click_reading
        self._metric_settings = metric_settings
        self._pending = PendingWork()
        # Click ids: a random prefix drawn on the first click (never at init, which a snapshot
        # would share) and a sequence: unique, and cheaper than a random id per click.
        self._id_prefix = ""
        self._sequence = 0

    def record_click(
        self,
        code: str,
        request: ClickRequest,
        destination: str = "",
        link: Link | None = None,
        from_cache: bool | None = None,
    ) -> None:
        if not self._id_prefix:
            self._id_prefix = os.urandom(12).hex()
        self._sequence += 1
        self._pending.clicks.append(
            (f"{self._id_prefix}{self._sequence:x}", code, time.time(), request, destination, link, from_cache)
        )

    def record_orphan(self, code: str, outcome: str) -> None:
        self._pending.orphans.append((code, outcome, time.time()))

    def count(self, metric: str) -> None:
        counts = self._pending.counts
        counts[metric] = counts.get(metric, 0) + 1

    def _take(self) -> PendingWork:
        work, self._pending = self._pending, PendingWork()
        return work


class InlineDispatcher(_InvocationRecorder):
    def invocation_done(self) -> None:
        from shortlink.clicks.packing import HeldClicks, PackingRules

        held = HeldClicks(PackingRules(window_seconds=0, max_clicks=1))
        held.add(*describe(self._take(), self._visitor_salt_root, self._click_reading))
        send(self._publisher(), held.take(time.monotonic()), self._metric_settings)


class ExtensionDispatcher(_InvocationRecorder):
    def __init__(
        self,
        publisher: "Callable[[], ClickPublisher]",
        visitor_salt_root: Callable[[], bytes],
        click_reading: "Callable[[], ClickReading]",
        metric_settings: "Callable[[], RedirectMetricSettings]",
        extensions: ExtensionsClient,
        rules: "Callable[[], PackingRules]",
    ) -> None:
        super().__init__(publisher, visitor_salt_root, click_reading, metric_settings)
        self._extensions = extensions
        self._rules = rules
        self._held: HeldClicks | None = None  # made on first use: the settings are read then
        # Each invocation's work is handed over whole, once: an invocation the extension never
        # saw (a response that failed to be written) neither repeats nor shifts later ones.
        self._handed: queue.SimpleQueue[PendingWork] = queue.SimpleQueue()
        self._state = threading.Condition()  # guards _held and _between_invocations
        self._between_invocations = False
        self._stopped = False
        extensions.register()
        if threading.current_thread() is threading.main_thread():
            self._previous_sigterm = signal.signal(signal.SIGTERM, self._flush_at_shutdown)
        else:
            logger.warning("not on the main thread: held clicks are not sent at shutdown")
        threading.Thread(target=self._run, name=EXTENSION_NAME, daemon=True).start()
        threading.Thread(target=self._send_when_idle, name=f"{EXTENSION_NAME}-idle", daemon=True).start()

    def invocation_done(self) -> None:
        self._handed.put(self._take())

    def _held_clicks(self) -> "HeldClicks":
        from shortlink.clicks.packing import HeldClicks

        if self._held is None:
            self._held = HeldClicks(self._rules())
        return self._held

    def _set_between_invocations(self, between: bool) -> None:
        with self._state:
            self._between_invocations = between
            self._state.notify_all()

    def _run(self) -> None:
        while True:
            self._set_between_invocations(True)
            try:
                event = self._extensions.next_event()
            except OSError:
                logger.warning("the Extensions API went away; clicks are no longer sent after responses")
                with self._state:
                    self._stopped = True
                    self._state.notify_all()
                return
            self._set_between_invocations(False)
            # The loop must go on: an extension that stops asking for events stalls every later
            # invocation of this environment.
            guarded(self._hold_handed_over, event.get("deadlineMs"))

    def _hold_handed_over(self, deadline_ms: int | None) -> None:
        self._hold(self._handed_over(deadline_ms))

    def _send(self, flush: "Flush") -> None:
        send(self._publisher(), flush, self._metric_settings)

    def _handed_over(self, deadline_ms: int | None) -> list[PendingWork]:
        """This invocation's work, once its handler is done, and any an unseen one left."""
        if deadline_ms is None:
            return [self._handed.get(), *self._drain_handed()]
        deadline = deadline_ms / 1000
        try:
            first = self._handed.get(timeout=max(0.0, deadline - time.time() - TIMEOUT_MARGIN_SECONDS))
        except queue.Empty:
            self._send_held()  # the handler is about to time out, which ends this process
            try:
                first = self._handed.get(timeout=max(0.0, deadline - time.time()))
            except queue.Empty:
                return []  # it timed out before its handler was done
        return [first, *self._drain_handed()]

    def _drain_handed(self) -> list[PendingWork]:
        works = []
        while True:
            try:
                works.append(self._handed.get_nowait())
            except queue.Empty:
                return works

    def _hold(self, works: list[PendingWork]) -> None:
        """Hold the works' clicks; send what is held if it is due."""
        described = [describe(work, self._visitor_salt_root, self._click_reading) for work in works]
        with self._state:
            held = self._held_clicks()
            for clicks, orphans, counts in described:
                held.add(clicks, orphans, counts)
            now = time.monotonic()
            flush = held.take(now) if held.due(now) else None
            self._state.notify_all()
        if flush is not None:
            self._send(flush)

    def _send_held(self) -> None:
        with self._state:
            flush = self._held_clicks().take(time.monotonic())
        self._send(flush)

    def _send_when_idle(self) -> None:
        """Send held clicks once due while no invocation comes. In Lambda the environment is
        frozen by then and this thread with it; where it is not (the local stack), it keeps an
        idle environment's clicks from waiting for the next visitor."""
        while True:
            with self._state:
                if self._stopped:
                    return
                held = self._held
                due_at = held.due_at() if held is not None else None
                if held is None or due_at is None or not self._between_invocations:
                    self._state.wait()
                    continue
                late = time.monotonic() - due_at
                if late < 0:
                    self._state.wait(-late)
                    continue
                if late > FROZEN_SLACK_SECONDS:
                    self._state.wait()  # thawed: the invocation that thawed it sends them
                    continue
                flush = held.take(time.monotonic())
            guarded(self._send, flush)

    def _flush_at_shutdown(self, signum: int, frame: FrameType | None) -> None:
        """SIGTERM: send what is held within Lambda's grace period, then end as before."""
        try:
            self.send_before(time.monotonic() + SHUTDOWN_BUDGET_SECONDS)
        finally:
            previous = self._previous_sigterm
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)

    def send_before(self, deadline: float) -> None:
        """Send everything held, and any work not yet taken, by `deadline` (monotonic). What is
        not known to be queued by then is logged for replay and counted as HeldClicksLost."""
        described = [describe(work, self._visitor_salt_root, self._click_reading) for work in self._drain_handed()]
        if not self._state.acquire(timeout=max(0.0, deadline - time.monotonic())):
            return
        try:
            if self._held is None and not described:
                return  # never held a click: nothing to send, nothing to load at shutdown
            held = self._held_clicks()
            for clicks, orphans, counts in described:
                held.add(clicks, orphans, counts)
            flush = held.take(time.monotonic())
        finally:
            self._state.release()
        if not flush.packs:  # nothing held (an environment of refusals, checks or no clicks yet)
            emit(flush.counts, self._metric_settings)  # no client made, no thread started within SIGTERM's 500 ms
            return
        queued: list[ClickPack] = []

        def send_all() -> None:
            publisher = self._publisher()
            for pack in flush.packs:
                if not deliver(publisher, [pack], attempts=1):
                    queued.append(pack)

        sender = threading.Thread(target=send_all, name=f"{EXTENSION_NAME}-shutdown", daemon=True)
        sender.start()
        sender.join(max(0.0, deadline - time.monotonic()))
        counts = flush.counts
        queued_ids = {pack.pack_id for pack in queued}
        lost = [pack for pack in flush.packs if pack.pack_id not in queued_ids]
        if lost:
            counts.update(log_lost(lost))
            counts["HeldClicksLost"] = sum(len(pack.clicks) for pack in lost)
        emit(counts, self._metric_settings)


def click_dispatcher(
    publisher: "Callable[[], ClickPublisher]",
    visitor_salt_root: Callable[[], bytes],
    click_reading: "Callable[[], ClickReading]",
    packing_rules: "Callable[[], PackingRules]",
    metric_settings: "Callable[[], RedirectMetricSettings]",
    extensions_api: str,
) -> ClickDispatcher:
    """The extension where Lambda's Extensions API exists (`extensions_api`, its address; call
    at init), else inline sending. The providers come from the composition root and are called
    after a response."""
    if extensions_api:
        extensions = LambdaExtensionsApi(extensions_api)
        return ExtensionDispatcher(
            publisher, visitor_salt_root, click_reading, metric_settings, extensions, packing_rules
        )
    logger.warning("no Lambda Extensions API (AWS_LAMBDA_RUNTIME_API unset): clicks are sent inline")
    return InlineDispatcher(publisher, visitor_salt_root, click_reading, metric_settings)
