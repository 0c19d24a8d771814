"""Webhook events as they reach the webhook queue, before fan-out: one message each (a link's
change with its view, or an ingest batch's newly counted clicks per code)."""

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, get_args

EventType = Literal["link.created", "link.updated", "link.deleted", "link.restored", "link.clicked", "audit.recorded"]
EVENT_TYPES: tuple[EventType, ...] = get_args(EventType)
CLICK_EVENT: EventType = "link.clicked"
# An audit log entry (shortlink.audit): only to endpoints that ask for it by name.
AUDIT_EVENT: EventType = "audit.recorded"
DEFAULT_EVENT_TYPES: tuple[EventType, ...] = tuple(event for event in EVENT_TYPES if event != AUDIT_EVENT)
# Click counts of this many links at most per queue message (an SQS message holds 256 KiB).
MAX_CODES_PER_CLICK_EVENT = 2000


@dataclass(frozen=True)
class EventMessage:
    """One event on the webhook queue, before fan-out. A link event carries the link's owner,
    tags and view; a click event the newly counted clicks per code (owners looked up at fan-out)."""

    event_id: str
    event_type: str
    at: datetime
    owner: str = ""
    tags: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    clicks: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": "event",
                "id": self.event_id,
                "type": self.event_type,
                "at": self.at.isoformat(),
                "owner": self.owner,
                "tags": list(self.tags),
                "data": dict(self.data),
                "clicks": dict(self.clicks),
            },
            separators=(",", ":"),
        )


def link_event(event_type: str, owner: str, tags: Iterable[str], view: Mapping[str, Any], at: datetime) -> EventMessage:
    return EventMessage("evt_" + uuid.uuid4().hex, event_type, at, owner, tuple(tags), view)


def click_events(counts: Mapping[str, int], at: datetime) -> list[EventMessage]:
    """The newly counted clicks of an ingest batch per code, as few events as fit in a message."""
    codes = sorted(code for code, count in counts.items() if count > 0)
    return [
        EventMessage(
            "evt_" + uuid.uuid4().hex,
            CLICK_EVENT,
            at,
            clicks={code: counts[code] for code in codes[start : start + MAX_CODES_PER_CLICK_EVENT]},
        )
        for start in range(0, len(codes), MAX_CODES_PER_CLICK_EVENT)
    ]
