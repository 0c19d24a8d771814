"""Webhook endpoints and the events they receive, signed per Standard Webhooks.

An API key registers endpoints (an HTTPS URL, the events it wants, an optional tag filter) and
gets its signing secret once. Events reach the webhook queue as one message each (`EventMessage`);
the webhooks function fans each out into one `Delivery` per matching endpoint, whose id is a hash
of the event's id and the endpoint's, so a fan-out that runs twice gives the receiver the same
`webhook-id` twice and it can drop the second. Nothing here calls AWS or the network.
"""

import base64
import hashlib
import ipaddress
import json
import secrets
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, get_args

from shortlink.domains.model import ShortDomains, split_key
from shortlink.errors import InvalidUrl, ShortlinkError
from shortlink.web.urls import DestinationPolicy, validate_destination

EventType = Literal["link.created", "link.updated", "link.deleted", "link.restored", "link.clicked", "audit.recorded"]
EVENT_TYPES: tuple[EventType, ...] = get_args(EventType)
CLICK_EVENT: EventType = "link.clicked"
# An audit log entry (shortlink.audit): only to endpoints that ask for it by name.
AUDIT_EVENT: EventType = "audit.recorded"
DEFAULT_EVENT_TYPES: tuple[EventType, ...] = tuple(event for event in EVENT_TYPES if event != AUDIT_EVENT)
SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SECRET_BYTES = 32  # Standard Webhooks: 24 to 64 random bytes, base64
# How long a rotated-out secret still signs deliveries beside the new one (the receiver's time to switch).
SECRET_OVERLAP = timedelta(hours=24)
MAX_ENDPOINTS_PER_ACCOUNT = 10  # every key of an account shares them
# Seconds before each retry of a failed delivery (Svix's schedule, capped so that the last
# attempt, the 8th, comes about a day after the first); the queue dead-letters it after that.
RETRY_DELAYS_SECONDS = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 8 * 3600, 8 * 3600)
MAX_ATTEMPTS = len(RETRY_DELAYS_SECONDS) + 1
# Click counts of this many links at most per queue message (an SQS message holds 256 KiB).
MAX_CODES_PER_CLICK_EVENT = 2000
# Hosts that name cloud metadata services or private networks whatever they resolve to.
PRIVATE_SUFFIXES = (".internal", ".local", ".localhost", ".home.arpa")


class EndpointNotFound(ShortlinkError):
    """No webhook endpoint with that id (or not one the caller owns)."""


class EndpointChanged(ShortlinkError):
    """The endpoint changed (another edit or rotation) between its read and this write."""


class TooManyEndpoints(ShortlinkError):
    """The account has MAX_ENDPOINTS_PER_ACCOUNT endpoints already."""


@dataclass(frozen=True)
class Endpoint:
    owner: str
    endpoint_id: str
    url: str
    events: tuple[str, ...]
    tags: tuple[str, ...]
    secret: str
    created_at: datetime
    disabled_at: datetime | None = None
    consecutive_failures: int = 0
    # The expiry of the key that registered it: it reads nothing after its key could not.
    expires_at: datetime | None = None
    # The secret a rotation replaced, which still signs deliveries beside the new one until
    # `previous_secret_until`, so that a receiver can take the new one without missing any.
    previous_secret: str | None = None
    previous_secret_until: datetime | None = None

    def signing_secrets(self, at: datetime) -> tuple[str, ...]:
        """The secrets a delivery at `at` is signed with: the endpoint's, and the one it replaced
        while the rotation's overlap lasts."""
        until = self.previous_secret_until
        if self.previous_secret and until is not None and at < until:
            return (self.secret, self.previous_secret)
        return (self.secret,)

    def wants(self, event_type: str, link_tags: Iterable[str], at: datetime) -> bool:
        """Whether an event of this type about a link with these tags, at `at`, goes to this endpoint."""
        if self.disabled_at is not None or event_type not in self.events:
            return False
        if self.expires_at is not None and at >= self.expires_at:
            return False
        return not self.tags or not set(self.tags).isdisjoint(link_tags)


def edited(
    endpoint: Endpoint,
    url: str | None = None,
    events: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    enable: bool = False,
) -> tuple[Endpoint, tuple[str, ...]]:
    """`endpoint` with these changes (None: kept; `url` already checked), and the names of the
    fields that changed (an edit that changes nothing changes none)."""
    changes: dict[str, Any] = {}
    if url is not None and url != endpoint.url:
        changes["url"] = url
    if events is not None and tuple(dict.fromkeys(events)) != endpoint.events:
        changes["events"] = tuple(dict.fromkeys(events))
    if tags is not None and tuple(dict.fromkeys(tags)) != endpoint.tags:
        changes["tags"] = tuple(dict.fromkeys(tags))
    names = tuple(changes)
    if enable and endpoint.disabled_at is not None:
        changes |= {"disabled_at": None, "consecutive_failures": 0}
        names += ("enabled",)
    return replace(endpoint, **changes), names


def rotated(endpoint: Endpoint, at: datetime) -> Endpoint:
    """`endpoint` with a new signing secret, the one it replaces signing beside it for SECRET_OVERLAP."""
    return replace(
        endpoint, secret=new_secret(), previous_secret=endpoint.secret, previous_secret_until=at + SECRET_OVERLAP
    )


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def new_endpoint_id() -> str:
    return "ep_" + uuid.uuid4().hex


def validate_endpoint_url(url: str, policy: DestinationPolicy, allow_loopback: bool = False) -> str:
    """`url` as a link destination is checked, and more: a webhook is a request the shortener
    itself makes, so it must be HTTPS and its host no private, link-local or metadata address
    (checked again on the address DNS gives at each send). `allow_loopback` (the local stack
    only) lets an http or https receiver on 127.0.0.1 through."""
    from ada_url import URL

    if allow_loopback and (receiver := _loopback_receiver(url)) is not None:
        return receiver
    href = validate_destination(url, policy)
    parsed = URL(href)
    if parsed.protocol != "https:":
        raise InvalidUrl("url of a webhook must be https")
    name = parsed.hostname.strip("[]").removesuffix(".")
    if name.endswith(PRIVATE_SUFFIXES) or name == "metadata.google.internal":
        raise InvalidUrl(f"url host {name} is a private name")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return href
    if not is_public_address(address):
        raise InvalidUrl(f"url host {name} is not a public address (a webhook is sent from the server)")
    return href


def _loopback_receiver(url: str) -> str | None:
    from ada_url import URL

    try:
        parsed = URL(url)
    except ValueError:
        return None
    if parsed.protocol not in ("http:", "https:"):
        return None
    try:
        loopback = ipaddress.ip_address(parsed.hostname.strip("[]")).is_loopback
    except ValueError:
        return None
    return parsed.href if loopback else None


# IPv6 prefixes whose last 32 bits are an IPv4 address a translator or the host itself reaches:
# NAT64 (RFC 6052), SIIT (RFC 7915's ::ffff:0:0:0/96) and IPv4-compatible addresses (::/96).
IPV4_TAIL_PREFIXES = tuple(ipaddress.ip_network(prefix) for prefix in ("64:ff9b::/96", "::ffff:0:0:0/96", "::/96"))


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, NAT64, SIIT, IPv4-compatible, 6to4,
    Teredo's server and client): each is where a packet may end up, so each is judged."""
    found = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
    if any(address in prefix for prefix in IPV4_TAIL_PREFIXES):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return [embedded for embedded in found if embedded is not None]


def is_public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A globally routable unicast address: not private, loopback, link-local (where the cloud
    metadata service lives: 169.254.169.254, fd00:ec2::254 is private), shared or reserved, in
    any spelling: an IPv6 address that embeds an IPv4 one is public only if that one is too."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # the IPv4 address itself, as a dual-stack socket names it
            return is_public_address(address.ipv4_mapped)
        if not all(is_public_address(embedded) for embedded in embedded_ipv4(address)):
            return False
    return address.is_global and not address.is_multicast


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
