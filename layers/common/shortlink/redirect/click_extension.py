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

`click_dispatcher` makes it where the Extensions API exists, and the inline dispatcher elsewhere.
"""

import logging
import os
import queue
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from shortlink.redirect.click_dispatch import (
    ClickDispatcher,
    ClickProviders,
    InlineDispatcher,
    InvocationRecorder,
    PendingWork,
)
from shortlink.redirect.click_sending import deliver, emit, send
from shortlink.redirect.lambda_extensions import EXTENSION_NAME, ExtensionsClient, LambdaExtensionsApi
from shortlink.redirect.lost_clicks import log_lost

if TYPE_CHECKING:
    from shortlink.clicks.events import ClickPack
    from shortlink.clicks.packing import Flush, HeldClicks, PackingRules

logger = logging.getLogger("shortlink.clicks")

# Lambda gives a runtime with an internal extension about 500 ms between SIGTERM and SIGKILL.
SHUTDOWN_BUDGET_SECONDS = 0.4
# A handler this close to its deadline is about to be stopped, and this process with it.
TIMEOUT_MARGIN_SECONDS = 0.5
# Woken this much later than asked, the environment was frozen: the invocation that thawed it
# sends what is due when it ends, rather than a send racing its handler.
FROZEN_SLACK_SECONDS = 1.0


def guarded(work: Callable[..., None], *args: Any) -> None:
    """Run after-response work whose failure must not stop the thread running it."""
    try:
        work(*args)
    except Exception:
        logger.exception("after-response work failed")


class ExtensionDispatcher(InvocationRecorder):
    def __init__(
        self, providers: ClickProviders, extensions: ExtensionsClient, rules: "Callable[[], PackingRules]"
    ) -> None:
        super().__init__(providers)
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
        # take() without its frame: every hit pays this before the next event
        work, self._pending = self._pending, PendingWork(self._id_prefix)
        self._handed.put(work)

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
        send(self._providers.publisher(), flush, self._providers.metric_settings)

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
        described = [self.described(work) for work in works]
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
        described = [self.described(work) for work in self._drain_handed()]
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
            emit(
                flush.counts, self._providers.metric_settings
            )  # no client made, no thread started within SIGTERM's 500 ms
            return
        queued: list[ClickPack] = []

        def send_all() -> None:
            publisher = self._providers.publisher()
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
        emit(counts, self._providers.metric_settings)


def click_dispatcher(
    providers: ClickProviders, packing_rules: "Callable[[], PackingRules]", extensions_api: str
) -> ClickDispatcher:
    """The extension where Lambda's Extensions API exists (`extensions_api`, its address; call
    at init), else inline sending. The providers come from the composition root and are called
    after a response."""
    if extensions_api:
        extensions = LambdaExtensionsApi(extensions_api)
        return ExtensionDispatcher(providers, extensions, packing_rules)
    logger.warning("no Lambda Extensions API (AWS_LAMBDA_RUNTIME_API unset): clicks are sent inline")
    return InlineDispatcher(providers)
