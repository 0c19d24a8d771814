"""Sends click events after the visitor has the redirect.

In Lambda the environment freezes once the handler returns, so a plain background thread would
not run. An internal extension does: a thread in the runtime process that registers with the
Extensions API at init, and on each invocation waits for the handler's clicks, sends them, and
only then asks for the next event. Lambda sends the response as soon as the handler returns and
keeps the environment alive until the extension asks again; the visitor never waits for SQS.

Outside Lambda (no Extensions API) clicks are sent inline at the end of the invocation.
"""

import http.client
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from shortlink import deferred_metrics
from shortlink.clicks import CARRIED_METRICS, ClickEvent, ClickPublisher
from shortlink.errors import StorageUnavailable

logger = logging.getLogger("shortlink.clicks")

EXTENSION_NAME = "shortlink-clicks"
EXTENSIONS_API = "/2020-01-01/extension"
# The marker of a click that could not be queued; `python -m tools.replay_clicks` looks for it.
LOST_CLICK_EVENT = "click_not_queued"
SEND_ATTEMPTS = 3
RETRY_PAUSE_SECONDS = 0.05


@dataclass
class PendingWork:
    """What one invocation leaves for after its response: clicks to send, metrics to emit.
    Clicks are kept as (code, epoch seconds, the request); their events are built after the
    response (shortlink.click_context)."""

    clicks: list[tuple[str, float, dict[str, Any]]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


class ClickDispatcher(Protocol):
    def record_click(self, code: str, request: dict[str, Any]) -> None:
        """Hold a click on `code`, now, made by `request` (an API Gateway event), for after
        the response."""

    def count(self, metric: str) -> None:
        """Add one to a metric of the current invocation."""

    def invocation_done(self) -> None:
        """The handler is done: its clicks and metrics may go (call it in a `finally`)."""


def deliver(publisher: ClickPublisher, clicks: list[ClickEvent]) -> list[ClickEvent]:
    """Publish each click, retrying; log each one that still fails. Returns the lost ones."""
    lost = []
    for click in clicks:
        for attempt in range(SEND_ATTEMPTS):
            try:
                publisher.publish(click)
                break
            except StorageUnavailable:
                if attempt + 1 < SEND_ATTEMPTS:
                    time.sleep(RETRY_PAUSE_SECONDS * 2**attempt)
        else:
            lost.append(click)
            # Logged without its counts: those are emitted right here, a replay must not add them.
            logged = json.loads(replace(click, counts={}).to_json())
            logger.error(json.dumps({"event": LOST_CLICK_EVENT, "click": logged}))
    return lost


def describe_clicks(work: PendingWork) -> list[ClickEvent]:
    from shortlink.click_context import click_from_request
    from shortlink.config import settings
    from shortlink.services import visitor_salt_root

    try:
        salt_root: bytes | None = visitor_salt_root()
    except Exception:
        # Unique visitors are worth a log line, never a lost click.
        logger.exception("visitor salt not loaded: clicks go without a visitor hash")
        salt_root = None
    trust = settings().trust_edge_headers
    return [click_from_request(code, at, request, trust, salt_root) for code, at, request in work.clicks]


def finish(publisher: Callable[[], ClickPublisher], work: PendingWork) -> None:
    """Send the clicks, then emit what metrics the clicks could not carry.

    The cache outcome travels with the invocation's (first) click, and ingest emits it, one
    metrics record per batch: a redirect that sends its click writes no log record at all. Other
    counts, those of an invocation without a click (404, 410, 403...) and those of a lost click
    are emitted here."""
    counts = dict(work.counts)
    if work.clicks:
        clicks = describe_clicks(work)
        carried = {name: counts.pop(name) for name in CARRIED_METRICS & counts.keys()}
        clicks[0] = replace(clicks[0], counts=carried)
        lost = deliver(publisher(), clicks)
        if any(click is clicks[0] for click in lost):
            counts.update(carried)
        if lost:
            counts["ClickDispatchFailures"] = len(lost)
    try:
        deferred_metrics.emit(counts)
    except Exception:
        # Metrics are worth a log line, never a lost click or a stuck extension.
        logger.exception("metrics not emitted")


class _InvocationRecorder:
    """Collects one invocation's clicks and counts; `_take` hands them over and starts afresh."""

    def __init__(self, publisher: Callable[[], ClickPublisher]) -> None:
        self._publisher = publisher
        self._pending = PendingWork()

    def record_click(self, code: str, request: dict[str, Any]) -> None:
        self._pending.clicks.append((code, time.time(), request))

    def count(self, metric: str) -> None:
        counts = self._pending.counts
        counts[metric] = counts.get(metric, 0) + 1

    def _take(self) -> PendingWork:
        work, self._pending = self._pending, PendingWork()
        return work


class InlineDispatcher(_InvocationRecorder):
    def invocation_done(self) -> None:
        finish(self._publisher, self._take())


class ExtensionDispatcher(_InvocationRecorder):
    def __init__(self, publisher: Callable[[], ClickPublisher], runtime_api: str) -> None:
        super().__init__(publisher)
        self._runtime_api = runtime_api
        self._done: queue.SimpleQueue[PendingWork] = queue.SimpleQueue()
        self._extension_id = self._register()
        threading.Thread(target=self._run, name=EXTENSION_NAME, daemon=True).start()

    def invocation_done(self) -> None:
        # The next invocation's PendingWork is made by the extension thread, off the response
        # path; the next invocation cannot start before the extension asks for it.
        self._done.put(self._pending)

    def _request(self, method: str, path: str, body: str | None, headers: dict[str, str]) -> tuple[Any, bytes]:
        connection = http.client.HTTPConnection(self._runtime_api, timeout=None)
        try:
            connection.request(method, EXTENSIONS_API + path, body=body, headers=headers)
            response = connection.getresponse()
            return response, response.read()
        finally:
            connection.close()

    def _register(self) -> str:
        response, body = self._request(
            "POST", "/register", json.dumps({"events": ["INVOKE"]}), {"Lambda-Extension-Name": EXTENSION_NAME}
        )
        if response.status != 200:
            raise RuntimeError(f"extension registration failed: {response.status} {body!r}")
        return str(response.getheader("Lambda-Extension-Identifier"))

    def _next_event(self) -> dict[str, Any]:
        """Block until the next invocation starts; asking also ends the previous one."""
        _, body = self._request("GET", "/event/next", None, {"Lambda-Extension-Identifier": self._extension_id})
        event: dict[str, Any] = json.loads(body)
        return event

    def _run(self) -> None:
        while True:
            try:
                event = self._next_event()
            except OSError:
                logger.warning("the Extensions API went away; clicks are no longer sent after responses")
                return
            deadline_ms = event.get("deadlineMs")
            timeout = max(0.0, deadline_ms / 1000 - time.time()) if deadline_ms else None
            try:
                work = self._done.get(timeout=timeout)
            except queue.Empty:
                continue  # the invocation timed out before the handler was done
            self._pending = PendingWork()
            try:
                finish(self._publisher, work)
            except Exception:
                # The loop must go on: an extension that stops asking for events stalls
                # every later invocation of this environment.
                logger.exception("after-response work failed")


def click_dispatcher(publisher: Callable[[], ClickPublisher]) -> ClickDispatcher:
    """The extension where Lambda's Extensions API exists (call at init), else inline sending."""
    runtime_api = os.environ.get("AWS_LAMBDA_RUNTIME_API")
    if runtime_api:
        return ExtensionDispatcher(publisher, runtime_api)
    logger.warning("no Lambda Extensions API (AWS_LAMBDA_RUNTIME_API unset): clicks are sent inline")
    return InlineDispatcher(publisher)
