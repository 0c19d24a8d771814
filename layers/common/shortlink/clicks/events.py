"""Click events: what the redirect emits and the ingest function counts.

A click carries what the stats show and nothing that identifies a person: no IP address, no
User-Agent; the visitor is a hash under a salt that changes every day (shortlink.clicks.visitor_hashes).

It also carries the redirect's cache outcome as a count (`CacheHits: 1`), which ingest emits as
a metric, one record per batch: a redirect that queues its click writes no metrics record.
"""

import json
import re
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal, Protocol, get_args

from shortlink.clicks.agent_classes import PERSON, agent_of
from shortlink.links.keys import is_possible_key

# Every dimension a click is counted by (besides clicks and bots), in the stats' order.
Dimension = Literal["country", "device", "browser", "os", "referrer", "language", "campaign", "answered"]
DIMENSIONS: tuple[Dimension, ...] = get_args(Dimension)
QUEUED = tuple(name for name in DIMENSIONS if name != "answered")  # the dimensions a queued click says
UNKNOWN = "unknown"
DIRECT = "(direct)"  # no Referer
NO_CAMPAIGN = "(none)"  # a destination without utm_campaign
EDGE = "edge"  # answered at a POP by the edge function; otherwise a click was answered in a region
# The redirect's metrics a click may carry (the others are emitted by the redirect itself), and
# at most one invocation's worth of each: a queued message never makes up metrics.
CARRIED_METRICS = frozenset({"CacheHits", "CacheMisses"})
MAX_CARRIED_COUNT = 100
HOUR_FORMAT = "%Y-%m-%dT%H"
# Whose link was clicked and its tags at click time: what ingest adds the account's stats from.
# Both become parts of click-stats keys, so only plain values pass (as a key id and tags are).
OWNER_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
TAG_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
MAX_CLICK_TAGS = 10


@dataclass(frozen=True)
class ClickEvent:
    click_id: str  # unique per click: what makes counting it twice detectable
    code: str
    at: datetime
    country: str = "XX"
    device: str = UNKNOWN
    browser: str = UNKNOWN
    os: str = UNKNOWN
    referrer: str = DIRECT  # the referring host only
    language: str = UNKNOWN  # the primary subtag of the most preferred language
    campaign: str = NO_CAMPAIGN  # the utm_campaign of the destination the visitor was sent to
    agent: str = PERSON  # who made it: PERSON or a bot's class (shortlink.clicks.agent_classes)
    visitor: str = ""  # a daily-salted hash; empty when unknown
    counts: dict[str, int] = field(default_factory=dict)  # the redirect's metrics, see above
    owner: str = ""  # the link's owner (its API key's id) at click time; empty when unknown
    tags: tuple[str, ...] = ()  # the link's tags at click time
    repeat: bool = False  # its visitor followed the link moments before (shortlink.clicks.repeats)
    # Where it was answered: EDGE or a region's name. Ingest knows it from the path a click came
    # by (ClickPack.answered_in), so a queued click does not carry it.
    answered: str = UNKNOWN

    @property
    def bot(self) -> bool:
        return self.agent != PERSON

    @property
    def link_owner(self) -> "LinkOwner":
        return LinkOwner(self.owner, self.tags)

    def to_json(self, shared: "LinkOwner | None" = None) -> str:
        """The click as queued; without its owner and tags when they are `shared` (a pack says
        them once per link)."""
        data = {**asdict(self), "at": self.at.isoformat()}
        del data["answered"]
        # `bot` as queued before classes: an ingest of that time still counts the click right.
        if self.bot:
            data["bot"] = True
        else:
            del data["agent"]
        if not self.counts:
            del data["counts"]
        if not self.repeat:
            del data["repeat"]
        if not self.owner or self.link_owner == shared:
            del data["owner"], data["tags"]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, body: str, fallback_id: str = "", shared: "LinkOwner | None" = None) -> "ClickEvent":
        """Parse a queued click; ValueError (or KeyError/TypeError) for a malformed one. Clicks
        queued before ids existed use `fallback_id` (their SQS message id); a click without an
        owner of its own has the `shared` one (its pack's for its link)."""
        data = json.loads(body)
        code = data["code"]
        if not isinstance(code, str) or not is_possible_key(code):
            raise ValueError("click without a valid code")
        click_id = data.get("click_id") or fallback_id
        if not isinstance(click_id, str) or not click_id:
            raise ValueError("click without an id")
        at = datetime.fromisoformat(data["at"])
        if at.tzinfo is None:
            raise ValueError("click time without a zone")
        try:
            at = at.astimezone(UTC)  # here, so that a time out of range fails this click alone
        except OverflowError:
            raise ValueError("click time out of range") from None
        text = {name: str(data[name])[:253] for name in QUEUED if isinstance(data.get(name), str) and data[name]}
        owner = LinkOwner.from_dict(data) if "owner" in data else shared or LinkOwner("", ())
        return cls(
            click_id=click_id,
            code=code,
            at=at,
            agent=agent_of(data.get("agent"), data.get("bot") is True),
            repeat=data.get("repeat") is True,
            visitor=str(data.get("visitor") or "")[:64],
            counts=carried_counts(data.get("counts")),
            owner=owner.owner,
            tags=owner.tags,
            **text,
        )

    def hour(self) -> str:
        """The hour bucket the click is counted in (UTC), e.g. 2026-11-30T14."""
        return hour_bucket(self.at)


@dataclass(frozen=True)
class LinkOwner:
    """A clicked link's owner and tags at click time."""

    owner: str
    tags: tuple[str, ...]

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> "LinkOwner":
        owner, tags = data.get("owner"), data.get("tags", [])
        if not isinstance(owner, str) or not OWNER_PATTERN.fullmatch(owner):
            raise ValueError("click with a malformed owner")
        if not isinstance(tags, list) or len(tags) > MAX_CLICK_TAGS:
            raise ValueError(f"a click carries at most {MAX_CLICK_TAGS} tags")
        if not all(isinstance(tag, str) and TAG_PATTERN.fullmatch(tag) for tag in tags):
            raise ValueError("click with a malformed tag")
        return cls(owner, tuple(dict.fromkeys(tags)))

    def to_dict(self) -> dict[str, object]:
        return {"owner": self.owner, "tags": list(self.tags)}


def hour_bucket(at: datetime) -> str:
    """The hour (UTC) that clicks and orphan visits at `at` are counted in, e.g. 2026-11-30T14."""
    return at.astimezone(UTC).strftime(HOUR_FORMAT)


def carried_counts(value: object) -> dict[str, int]:
    """The counts a queued click carries, keeping only well-formed ones: a bad count is dropped,
    never a click."""
    if not isinstance(value, dict):
        return {}
    return {
        name: count
        for name, count in value.items()
        if name in CARRIED_METRICS and type(count) is int and 0 < count <= MAX_CARRIED_COUNT
    }


# A pack is the unit of a queue message: clicks held together by one redirect environment. Its
# id is fixed when the pack is formed and kept across every send of it, so ingest can tell a
# pack it already counted (a redelivery, a redrive) from a new one.
PACK_VERSION = 2
MAX_PACK_CLICKS = 1000
# SQS refuses a larger message; a pack is split by size too, since 1,000 clicks with every field
# at its longest would not fit.
MAX_PACK_BYTES = 256 * 1024


# Why a follow found no live link. Orphan visits are counted, not queued one by one: a pack
# carries how many of each (code, outcome, hour) its environment saw.
# "root": a visit of a domain's root (`GET /`), whose code is "/" (`<host>/` on another domain).
ORPHAN_OUTCOMES = frozenset({"unknown", "not_yet_valid", "deleted", "expired", "used_up", "root"})
MAX_PACK_ORPHANS = 100  # distinct (code, outcome, hour) entries per pack
MAX_ORPHAN_CODE_LENGTH = 64
# Where a flood of distinct codes is counted once an environment holds as many as a pack takes.
OVERFLOW_ORPHAN_CODE = "(other)"


def orphan_code(typed: str) -> str:
    """An attempted code as an orphan visit keeps it: its printable characters, bounded."""
    kept = "".join(char for char in typed if char.isprintable())[:MAX_ORPHAN_CODE_LENGTH]
    return kept or OVERFLOW_ORPHAN_CODE


@dataclass(frozen=True)
class OrphanVisit:
    code: str  # as the visitor asked for it (unknown codes are whatever was typed, bounded)
    outcome: str  # one of ORPHAN_OUTCOMES
    hour: str  # UTC, e.g. 2026-11-30T14
    count: int

    @classmethod
    def from_dict(cls, data: object) -> "OrphanVisit":
        if not isinstance(data, dict):
            raise ValueError("an orphan visit must be an object")
        code, outcome, hour, count = data.get("code"), data.get("outcome"), data.get("hour"), data.get("count")
        if not isinstance(code, str) or not 0 < len(code) <= MAX_ORPHAN_CODE_LENGTH or not code.isprintable():
            raise ValueError("orphan visit without a valid code")
        if outcome not in ORPHAN_OUTCOMES:
            raise ValueError("orphan visit with an unknown outcome")
        if not isinstance(hour, str):
            raise ValueError("orphan visit without an hour")
        datetime.strptime(hour, HOUR_FORMAT)  # ValueError when malformed
        if type(count) is not int or count < 1:
            raise ValueError("orphan visit without a positive count")
        return cls(code, outcome, hour, count)


@dataclass(frozen=True)
class ClickPack:
    pack_id: str
    clicks: tuple[ClickEvent, ...]
    orphans: tuple[OrphanVisit, ...] = ()

    def link_owners(self) -> dict[str, LinkOwner]:
        """Each clicked link's owner and tags, as its first click in the pack has them."""
        owners: dict[str, LinkOwner] = {}
        for click in self.clicks:
            if click.owner and click.code not in owners:
                owners[click.code] = click.link_owner
        return owners

    def answered_in(self, where: str) -> "ClickPack":
        """The pack with each of its clicks answered `where` (EDGE or a region's name)."""
        return replace(self, clicks=tuple(replace(click, answered=where) for click in self.clicks))

    def to_json(self) -> str:
        owners = self.link_owners()
        clicks = ",".join(click.to_json(owners.get(click.code)) for click in self.clicks)
        body = f'{{"v":{PACK_VERSION},"pack":{json.dumps(self.pack_id)},"clicks":[{clicks}]'
        if owners:
            links = {code: owner.to_dict() for code, owner in owners.items()}
            body += f',"links":{json.dumps(links, separators=(",", ":"))}'
        if self.orphans:
            orphans = json.dumps([asdict(orphan) for orphan in self.orphans], separators=(",", ":"))
            body += f',"orphans":{orphans}'
        return body + "}"

    @classmethod
    def from_message(cls, body: str, message_id: str) -> "ClickPack":
        """Parse a queue message: a pack, or a single click as queued before packs existed (its
        pack id is its click id). ValueError (or KeyError/TypeError) for a malformed one: one bad
        click fails its whole pack, since a pack is counted whole or not at all."""
        data = json.loads(body)
        if not isinstance(data, dict):
            raise ValueError("a queue message must be a JSON object")
        if data.get("v") != PACK_VERSION:
            click = ClickEvent.from_json(body, fallback_id=message_id)
            return cls(click.click_id, (click,))
        pack_id, clicks, orphans = data.get("pack"), data.get("clicks"), data.get("orphans", [])
        links = data.get("links", {})
        if not isinstance(pack_id, str) or not 0 < len(pack_id) <= 64:
            raise ValueError("pack without a valid id")
        if not isinstance(clicks, list) or len(clicks) > MAX_PACK_CLICKS:
            raise ValueError(f"a pack holds at most {MAX_PACK_CLICKS} clicks")
        if not isinstance(orphans, list) or len(orphans) > MAX_PACK_ORPHANS:
            raise ValueError(f"a pack holds at most {MAX_PACK_ORPHANS} orphan visit counts")
        if not clicks and not orphans:
            raise ValueError("an empty pack")
        if not isinstance(links, dict) or not all(isinstance(owner, dict) for owner in links.values()):
            raise ValueError("a pack's links must map codes to their owners")
        owners = {code: LinkOwner.from_dict(owner) for code, owner in links.items()}
        return cls(
            pack_id,
            tuple(ClickEvent.from_json(json.dumps(click), shared=_link_owner(click, owners)) for click in clicks),
            tuple(OrphanVisit.from_dict(orphan) for orphan in orphans),
        )


def _link_owner(click: object, owners: dict[str, LinkOwner]) -> LinkOwner | None:
    """The owner a pack names for this click's link (None for a malformed click, which fails)."""
    code = click.get("code") if isinstance(click, dict) else None
    return owners.get(code) if isinstance(code, str) else None


class ClickPublisher(Protocol):
    def publish(self, pack: ClickPack) -> None:
        """Queue a pack for counting (StorageUnavailable when it could not be)."""
