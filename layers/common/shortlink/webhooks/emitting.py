"""Emitting webhook events after the write they tell of: one queue call per request (or
ingest batch), and a failure to queue is logged, never the caller's failure (the link is
written; its event is what is lost)."""

import logging
from collections.abc import Sequence
from typing import Protocol

from shortlink.errors import StorageUnavailable
from shortlink.webhooks.events import EventMessage

logger = logging.getLogger("shortlink.webhooks.emitting")


class EventQueue(Protocol):
    def send(self, messages: Sequence[EventMessage]) -> None:
        """Queue the messages in as few calls as the queue allows; StorageUnavailable if not."""


def emit(queue: EventQueue | None, events: Sequence[EventMessage]) -> None:
    """Queue the events for fan-out to the endpoints that want them (nothing without a queue)."""
    if queue is None or not events:
        return
    try:
        queue.send(events)
    except StorageUnavailable:
        types = sorted({event.event_type for event in events})
        logger.exception("webhook events not queued", extra={"events": len(events), "types": types})
