"""Emitting webhook events after the write they tell of: one queue call per request (or
ingest batch), and a failure to queue is logged, never the caller's failure (the link is
written; its event is what is lost)."""

import logging
from collections.abc import Sequence

from shortlink.errors import StorageUnavailable
from shortlink.webhooks.model import EventMessage
from shortlink.wiring import webhook_queue

logger = logging.getLogger("shortlink.webhooks.emitting")


def emit(events: Sequence[EventMessage]) -> None:
    """Queue the events for fan-out to the endpoints that want them (nothing without a queue)."""
    queue = webhook_queue()
    if queue is None or not events:
        return
    try:
        queue.send(events)
    except StorageUnavailable:
        types = sorted({event.event_type for event in events})
        logger.exception("webhook events not queued", extra={"events": len(events), "types": types})
