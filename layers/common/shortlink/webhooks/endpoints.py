"""Webhook endpoints: an account's HTTPS receivers, the events each wants, its tag filter and
its signing secret (shown once; a rotation keeps the old one signing beside it for a day)."""

import base64
import secrets
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from shortlink.errors import ShortlinkError

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SECRET_BYTES = 32  # Standard Webhooks: 24 to 64 random bytes, base64
# How long a rotated-out secret still signs deliveries beside the new one (the receiver's time to switch).
SECRET_OVERLAP = timedelta(hours=24)
MAX_ENDPOINTS_PER_ACCOUNT = 10  # every key of an account shares them


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


def new_endpoint(
    owner: str, url: str, events: Iterable[str], tags: Iterable[str], at: datetime, expires_at: datetime | None
) -> Endpoint:
    """A new endpoint of `owner` (`url` already checked), with a fresh id and signing secret."""
    return Endpoint(
        owner=owner,
        endpoint_id=new_endpoint_id(),
        url=url,
        events=tuple(dict.fromkeys(events)),
        tags=tuple(dict.fromkeys(tags)),
        secret=new_secret(),
        created_at=at,
        expires_at=expires_at,
    )


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
