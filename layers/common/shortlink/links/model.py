"""A link and what describes it: its options as its owner chooses them, an edit, and whether it
may be followed now. The redirect imports this module on every cold start: it stays this small."""

import hashlib
from dataclasses import dataclass, fields, replace
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

from shortlink.domains.model import link_key, split_key

if TYPE_CHECKING:
    from shortlink.links.destinations import Utm
    from shortlink.links.previews import LinkPreview
    from shortlink.rules.model import LinkRules, RulesDocument

REDIRECT_TYPES = (301, 302, 307, 308)
DEFAULT_REDIRECT_TYPE = 302
# A private link's code is a capability: 128 random bits, 22 URL-safe characters.
PRIVATE_CODE_BYTES = 16
PRIVATE_CODE_LENGTH = 22


def may_be_private(code: str) -> bool:
    """Whether `code` has a private code's length (a slug may too): such codes never go into a
    log line."""
    return len(code) == PRIVATE_CODE_LENGTH


def private_key_digest(key: str) -> str:
    """A private link's key as records name it: a hash of it, which whoever holds the code can
    compute again."""
    return "private:" + hashlib.sha256(key.encode()).hexdigest()[:24]


def logged_key(key: str) -> str:
    """A link's key as a record kept apart from the link names it: itself, or its digest when its
    code may be private (a 22-character slug too: only the links table tells them apart)."""
    return private_key_digest(key) if may_be_private(split_key(key)[1]) else key


class Availability(Enum):
    ACTIVE = "active"
    NOT_YET = "not_yet"  # before valid_from: answered as unknown, so it reveals nothing early
    EXPIRED = "expired"  # from expires_at on: 410 Gone
    DELETED = "deleted"  # deleted by its owner: 410 Gone, and its code is never reused


@dataclass(frozen=True)
class LinkOptions:
    """What a link's owner may choose besides the destination."""

    slug: str | None = None
    valid_from: datetime | None = None
    expires_at: datetime | None = None
    redirect_type: int = DEFAULT_REDIRECT_TYPE
    tags: tuple[str, ...] = ()
    title: str | None = None
    private: bool = False
    max_clicks: int | None = None
    password: str | None = None  # plain text: hashed before anything is stored
    rules: "RulesDocument | None" = None  # the owner's JSON form, checked by create_link (shortlink.rules)
    forward_query: bool = True
    expired_url: str | None = None
    crawlable: bool = False
    preview: "LinkPreview | None" = None
    utm: "Utm | None" = None
    domain: str = ""  # the short domain's host name; "" is the default domain (shortlink.domains)
    # An import restores a link as exported: its stored hash, and a private link's own code
    # (given as `slug`), never accepted from a create request.
    password_hash: str | None = None
    imported: bool = False


@dataclass(frozen=True)
class Link:
    code: str
    url: str
    owner: str
    created_at: datetime
    valid_from: datetime | None = None
    expires_at: datetime | None = None
    redirect_type: int = DEFAULT_REDIRECT_TYPE
    tags: tuple[str, ...] = ()
    title: str | None = None
    custom_slug: bool = False
    private: bool = False
    deleted_at: datetime | None = None
    # Followed at most this many times, exactly, also under concurrent clicks (see ClickBudget).
    max_clicks: int | None = None
    password_hash: str | None = None  # see shortlink.access.passwords
    rules: "LinkRules | None" = None
    forward_query: bool = True  # the visitor's query parameters go on to the destination
    expired_url: str | None = None  # where a follow goes instead of the 410 page
    crawlable: bool = False  # search engines may index it (no X-Robots-Tag, allowed in robots.txt)
    preview: "LinkPreview | None" = None  # the card link-preview bots are shown
    utm: "Utm | None" = None  # merged into the destination's query
    domain: str = ""  # the short domain's host name; "" is the default domain (shortlink.domains)

    @property
    def key(self) -> str:
        """What the link is stored, cached, counted and budgeted under: its code on the default
        domain, `<host>/<code>` on another."""
        return link_key(self.domain, self.code)

    @property
    def is_plain(self) -> bool:
        """Whether its answer depends on nothing but the link (most links): no schedule, not
        deleted, no rules, no password, no click budget, no preview card (whose answer depends on
        the client)."""
        return (
            self.valid_from is None
            and self.expires_at is None
            and self.deleted_at is None
            and self.rules is None
            and self.password_hash is None
            and self.max_clicks is None
            and self.preview is None
        )

    def availability(self, now: datetime) -> Availability:
        if self.deleted_at is not None:
            return Availability.DELETED
        if self.valid_from is not None and now < self.valid_from:
            return Availability.NOT_YET
        if self.expires_at is not None and now >= self.expires_at:
            return Availability.EXPIRED
        return Availability.ACTIVE


@dataclass(frozen=True)
class LinkChanges:
    """An owner's edit: the fields to set. `cleared` names optional fields to remove."""

    url: str | None = None
    valid_from: datetime | None = None
    expires_at: datetime | None = None
    redirect_type: int | None = None
    tags: tuple[str, ...] | None = None
    title: str | None = None
    max_clicks: int | None = None
    password: str | None = None  # plain text, as the owner sends it; edit_link hashes it
    password_hash: str | None = None
    # The owner's JSON form; edit_link hands the repository the rules it makes of it.
    rules: "RulesDocument | LinkRules | None" = None
    forward_query: bool | None = None
    expired_url: str | None = None
    crawlable: bool | None = None
    preview: "LinkPreview | None" = None  # replaces the whole card
    utm: "Utm | None" = None  # replaces all UTM fields
    cleared: frozenset[str] = frozenset()

    CLEARABLE = frozenset(
        {"valid_from", "expires_at", "title", "max_clicks", "password", "rules", "expired_url", "preview", "utm"}
    )

    def cleared_fields(self) -> list[str]:
        """The stored fields the edit removes (a password is stored as its hash)."""
        return sorted("password_hash" if name == "password" else name for name in self.cleared)

    def stored_values(self) -> dict[str, Any]:
        """What the edit writes, by Link field: the values it sets, and None for each it clears
        (once edit_link has hashed the password and validated the rules)."""
        values = {
            field.name: getattr(self, field.name)
            for field in fields(self)
            if field.name not in ("password", "cleared") and getattr(self, field.name) is not None
        }
        return {**values, **dict.fromkeys(self.cleared_fields())}

    def applied_to(self, link: Link) -> Link:
        """The link as the edit leaves it (once edit_link has validated the rules)."""
        return replace(link, **self.stored_values())
