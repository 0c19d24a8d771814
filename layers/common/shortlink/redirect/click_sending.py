"""Sends a flush of click packs to the clicks queue, retrying, then emits its metrics; packs that
still fail are logged for replay (shortlink.redirect.lost_clicks) and counted."""

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from shortlink.clicks import metrics as deferred_metrics
from shortlink.errors import StorageUnavailable
from shortlink.redirect.lost_clicks import log_lost

if TYPE_CHECKING:
    from shortlink.clicks.events import ClickPack, ClickPublisher
    from shortlink.clicks.packing import Flush
    from shortlink.settings.metrics import RedirectMetricSettings

logger = logging.getLogger("shortlink.clicks")

SEND_ATTEMPTS = 3
RETRY_PAUSE_SECONDS = 0.05


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
