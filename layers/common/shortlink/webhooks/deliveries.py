"""Deliveries: one event for one endpoint, signed per Standard Webhooks. Its id is a hash of the
event's id and the endpoint's, so a fan-out that runs twice gives the receiver the same
`webhook-id` twice and it can drop the second; a failed one is retried on a fixed schedule."""

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from shortlink.domains.model import ShortDomains, split_key
from shortlink.webhooks.endpoints import Endpoint
from shortlink.webhooks.events import CLICK_EVENT, EVENT_TYPES, EventMessage

# Seconds before each retry of a failed delivery (Svix's schedule, capped so that the last
# attempt, the 8th, comes about a day after the first); the queue dead-letters it after that.
RETRY_DELAYS_SECONDS = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 8 * 3600, 8 * 3600)
MAX_ATTEMPTS = len(RETRY_DELAYS_SECONDS) + 1


@dataclass(frozen=True)
class Delivery:
    """One event for one endpoint: what is signed and posted, attempt after attempt."""

    webhook_id: str
    owner: str
    endpoint_id: str
    payload: str  # the JSON body, fixed at fan-out: every attempt sends the same bytes

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": "delivery",
                "id": self.webhook_id,
                "owner": self.owner,
                "endpoint": self.endpoint_id,
                "payload": self.payload,
            },
            separators=(",", ":"),
        )


def delivery_id(event_id: str, endpoint_id: str) -> str:
    return "msg_" + hashlib.sha256(f"{event_id}/{endpoint_id}".encode()).hexdigest()[:32]


def payload(event_type: str, at: datetime, data: Mapping[str, Any]) -> str:
    return json.dumps({"type": event_type, "timestamp": at.isoformat(), "data": dict(data)}, separators=(",", ":"))


@dataclass(frozen=True)
class LinkOwnership:
    owner: str
    tags: tuple[str, ...]


def link_deliveries(event: EventMessage, endpoints: Iterable[Endpoint]) -> list[Delivery]:
    body = payload(event.event_type, event.at, event.data)
    return [
        Delivery(delivery_id(event.event_id, endpoint.endpoint_id), endpoint.owner, endpoint.endpoint_id, body)
        for endpoint in endpoints
        if endpoint.wants(event.event_type, event.tags, event.at)
    ]


def click_deliveries(
    event: EventMessage,
    links: Mapping[str, LinkOwnership],
    endpoints: Mapping[str, list[Endpoint]],
    domains: ShortDomains,
) -> list[Delivery]:
    """One delivery per endpoint that wants clicks, carrying the event's clicks of its own
    links (those its tag filter lets through), never one per click. Clicks are counted by key
    (shortlink.domains): each link is named by its code and its domain, as the API shows them."""
    deliveries = []
    for owner, owned in sorted(endpoints.items()):
        for endpoint in owned:
            counts = {
                code: count
                for code, count in sorted(event.clicks.items())
                if code in links
                and links[code].owner == owner
                and endpoint.wants(CLICK_EVENT, links[code].tags, event.at)
            }
            if not counts:
                continue
            data = {
                "clicks": sum(counts.values()),
                "links": [click_entry(key, count, domains) for key, count in counts.items()],
            }
            body = payload(CLICK_EVENT, event.at, data)
            deliveries.append(
                Delivery(delivery_id(event.event_id, endpoint.endpoint_id), owner, endpoint.endpoint_id, body)
            )
    return deliveries


def click_entry(key: str, clicks: int, domains: ShortDomains) -> dict[str, Any]:
    domain, code = split_key(key)
    return {"code": code, "domain": domains.public_name(domain), "clicks": clicks}


def parse_message(body: str) -> EventMessage | Delivery:
    """A webhook queue message; ValueError (or KeyError/TypeError) for a malformed one."""
    data = json.loads(body)
    kind: Literal["event", "delivery"] = data["kind"]
    if kind == "delivery":
        return Delivery(str(data["id"]), str(data["owner"]), str(data["endpoint"]), str(data["payload"]))
    if kind != "event" or data["type"] not in EVENT_TYPES:
        raise ValueError("not a webhook event")
    clicks = {str(code): int(count) for code, count in data.get("clicks", {}).items()}
    return EventMessage(
        str(data["id"]),
        data["type"],
        datetime.fromisoformat(data["at"]),
        str(data.get("owner", "")),
        tuple(data.get("tags", [])),
        data.get("data", {}),
        clicks,
    )


def retry_delay(attempt: int) -> int | None:
    """Seconds to wait after the failed `attempt` (1-based), None after the last one."""
    return RETRY_DELAYS_SECONDS[attempt - 1] if attempt < MAX_ATTEMPTS else None


def disables_endpoint(attempt: int, consecutive_failures: int) -> bool:
    """A delivery failed its last attempt (about a day after its first) and the endpoint has
    answered no delivery since at least that many attempts: the endpoint is disabled."""
    return attempt >= MAX_ATTEMPTS and consecutive_failures >= MAX_ATTEMPTS


def signature_headers(secrets: Iterable[str], webhook_id: str, at: datetime, body: str) -> dict[str, str]:
    """A delivery's headers per Standard Webhooks (the `standardwebhooks` package): `webhook-id`
    (the delivery's, the same on every attempt), `webhook-timestamp` (this attempt's) and
    `webhook-signature`: one signature per secret, space-separated, as the standard allows
    during a rotation (a receiver accepts the delivery if any of them is its secret's)."""
    from standardwebhooks import Webhook

    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": " ".join(Webhook(secret).sign(webhook_id, at, body) for secret in secrets),
    }
