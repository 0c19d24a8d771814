"""A link's rules: who may follow it (access lists) and where each visitor goes (routes); their
JSON form and its checks: shortlink.rules.parsing.

Access: a visitor is denied when any `deny` list names them, or when an `allow` list exists for a
dimension and does not name them. Routes: the first route whose every condition holds picks the
destination (its `url`, or a variant of its weighted `split`); no match → the link's `url`.
"""

import hashlib
import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias

from shortlink.rules.user_agents import Client

# A JSON value, and the JSON form of rules: as an owner sends it (parse_rules checks each part)
# and as LinkRules keeps it normalised, to store and to show.
Json: TypeAlias = "str | int | float | bool | list[Json] | dict[str, Json] | None"
RulesDocument: TypeAlias = "dict[str, Json]"
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# The dimensions an access list may name (routes may name languages and a time window too).
ACCESS_KEYS = ("countries", "devices", "browsers", "os", "ips")
LANGUAGE_PATTERN = re.compile(r"[a-z]{1,8}(-[a-z0-9]{1,8})*")


@dataclass(frozen=True)
class Visitor:
    """What the rules may look at. Nothing of it is stored (see shortlink.redirect.visitors)."""

    country: str  # ISO code, or XX when unknown
    client: Client
    ip: IpAddress | None
    languages: tuple[str, ...]  # lower-case tags, most preferred first (q-values applied)
    now: datetime  # UTC
    sticky_key: bytes  # what keeps a visitor on one A/B variant; hashed, never kept


@dataclass(frozen=True)
class TimeWindow:
    """Daily, in UTC: [start, end) in minutes of the day (end < start wraps past midnight), on
    the given weekdays (0 = Monday; empty = every day)."""

    start: int | None
    end: int | None
    days: frozenset[int]

    def contains(self, moment: datetime) -> bool:
        if self.days and moment.weekday() not in self.days:
            return False
        if self.start is None or self.end is None:
            return True
        minute = moment.hour * 60 + moment.minute
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end


@dataclass(frozen=True)
class Conditions:
    """Each given dimension lists the values it accepts; an empty one accepts anything."""

    countries: frozenset[str] = frozenset()
    devices: frozenset[str] = frozenset()
    browsers: frozenset[str] = frozenset()
    os: frozenset[str] = frozenset()
    ips: tuple[IpNetwork, ...] = ()
    languages: tuple[str, ...] = ()
    time: TimeWindow | None = None

    def _checks(self, visitor: Visitor) -> Iterable[bool]:
        """One verdict per given dimension."""
        if self.countries:
            yield visitor.country in self.countries
        if self.devices:
            yield visitor.client.device in self.devices
        if self.browsers:
            yield visitor.client.browser in self.browsers
        if self.os:
            yield visitor.client.os in self.os
        if self.ips:
            yield visitor.ip is not None and any(visitor.ip in network for network in self.ips)
        if self.languages:
            yield _language_matches(visitor.languages, self.languages)
        if self.time is not None:
            yield self.time.contains(visitor.now)

    def all_hold(self, visitor: Visitor) -> bool:
        return all(self._checks(visitor))

    def any_holds(self, visitor: Visitor) -> bool:
        return any(self._checks(visitor))


@dataclass(frozen=True)
class Variant:
    url: str
    weight: int


@dataclass(frozen=True)
class Route:
    when: Conditions
    url: str | None = None
    split: tuple[Variant, ...] = ()


@dataclass(frozen=True)
class LinkRules:
    allow: Conditions | None
    deny: Conditions | None
    routes: tuple[Route, ...]
    document: RulesDocument  # the normalised JSON form: what is stored and shown

    def denies(self, visitor: Visitor) -> bool:
        if self.deny is not None and self.deny.any_holds(visitor):
            return True
        return self.allow is not None and not self.allow.all_hold(visitor)

    def destination(self, visitor: Visitor, code: str, default_url: str) -> str:
        for route in self.routes:
            if route.when.all_hold(visitor):
                return route.url if route.url is not None else _pick_variant(route.split, visitor, code)
        return default_url


def _language_matches(preferred: tuple[str, ...], ranges: tuple[str, ...]) -> bool:
    """The visitor's most preferred language falls within one of the ranges (RFC 4647 basic
    filtering: "de" covers "de-AT")."""
    if not preferred:
        return False
    tag = preferred[0]
    return any(tag == prefix or tag.startswith(prefix + "-") for prefix in ranges)


def _pick_variant(variants: tuple[Variant, ...], visitor: Visitor, code: str) -> str:
    """Sticky without storing anything: the same visitor (network address and browser) lands in
    the same bucket of this link on every visit."""
    total = sum(variant.weight for variant in variants)
    digest = hashlib.blake2b(visitor.sticky_key, digest_size=8, person=b"shortlink-ab", salt=code.encode()[:16])
    bucket = int.from_bytes(digest.digest(), "big") % total
    for variant in variants:
        if bucket < variant.weight:
            return variant.url
        bucket -= variant.weight
    return variants[-1].url
