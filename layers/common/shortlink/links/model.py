"""Links and the operations on them, written against the LinkRepository port."""

import secrets
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from shortlink.domains.model import link_key, split_key
from shortlink.errors import (
    CodeTaken,
    DestinationTooLong,
    InvalidLinkOption,
    InvalidUrl,
    LinkNotFound,
    NoFreeCode,
    ShortlinkError,
    SlugTaken,
)
from shortlink.links.keys import is_possible_key
from shortlink.links.urls import MAX_URL_LENGTH, DestinationPolicy, validate_destination

if TYPE_CHECKING:  # only create generates codes; the redirect must not import the generator
    from shortlink.codes.generator import CodeSource
    from shortlink.links.destinations import Utm
    from shortlink.links.previews import LinkPreview
    from shortlink.rules.model import LinkRules, RulesDocument

# A collision means the code was taken by other means than our counter (a restored table,
# a custom slug); a handful of fresh ids is plenty before we give up loudly.
MAX_CODE_ATTEMPTS = 5
REDIRECT_TYPES = (301, 302, 307, 308)
DEFAULT_REDIRECT_TYPE = 302
# Dates further ahead are mistakes (and would overflow the expiry's TTL arithmetic).
MAX_SCHEDULE_AHEAD = timedelta(days=100 * 365)
# A private link's code is a capability: 128 random bits, 22 URL-safe characters.
PRIVATE_CODE_BYTES = 16
PRIVATE_CODE_LENGTH = 22


def may_be_private(code: str) -> bool:
    """Whether `code` has a private code's length (a slug may too): such codes never go into a
    log line."""
    return len(code) == PRIVATE_CODE_LENGTH


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


class LinkSource(Protocol):
    def get(self, code: str) -> Link | None:
        """The link with this code, or None."""


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


class Allowance(Protocol):
    def take(self) -> None:
        """Count one use; raise RateLimited when none is left."""

    def give_back(self) -> None:
        """Uncount the use taken, for a request refused after all."""


class ClickBudget(Protocol):
    def take(self, code: str) -> bool:
        """Count one follow of a link with max_clicks, atomically; False once all are used."""


class LinkRepository(LinkSource, Protocol):
    def add(self, link: Link) -> None:
        """Store a new link; raise CodeTaken if its code exists (a conditional put)."""

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        """Apply `changes` in one conditional write if `owner` owns the link; raise LinkNotFound
        otherwise. Returns the link as stored."""

    def set_deleted(self, code: str, owner: str, deleted_at: datetime | None) -> Link:
        """Mark the link deleted (or restore it with None) if `owner` owns it; else LinkNotFound."""

    def list_for_owner(
        self,
        owner: str,
        limit: int,
        cursor: str | None,
        tag: str | None,
        utm_campaign: str | None = None,
        domain: str | None = None,
    ) -> tuple[list[Link], str | None]:
        """The owner's links, newest first, a page at a time (those with `tag`, those of
        `utm_campaign`, those of `domain`: "" the default's); the cursor of the next page."""

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        """Store a link whose code is a custom slug, together with a claim on `slug_key`, in one
        transaction; raise SlugTaken if the code or the claim exists."""

    def existing_codes(self, codes: list[str]) -> set[str]:
        """Which of `codes` belong to a link (reads only)."""

    def is_claimed(self, slug_key: str) -> bool:
        """Whether a custom slug holds the claim on `slug_key` (a read)."""


def check_options(options: LinkOptions, now: datetime) -> None:
    """Refuse options that cannot work together; each error names its field."""
    if options.redirect_type not in REDIRECT_TYPES:
        raise InvalidLinkOption("redirect_type", f"redirect_type must be one of {', '.join(map(str, REDIRECT_TYPES))}")
    for field, moment in (("valid_from", options.valid_from), ("expires_at", options.expires_at)):
        if moment is not None and moment.tzinfo is None:
            raise InvalidLinkOption(field, f"{field} must carry a time zone (e.g. 2026-12-01T00:00:00Z)")
        if moment is not None and moment > now + MAX_SCHEDULE_AHEAD:
            raise InvalidLinkOption(field, f"{field} must be within {MAX_SCHEDULE_AHEAD.days // 365} years")
    if options.expires_at is not None and options.expires_at <= now:
        raise InvalidLinkOption("expires_at", "expires_at must be in the future")
    if options.valid_from and options.expires_at and options.expires_at <= options.valid_from:
        raise InvalidLinkOption("expires_at", "expires_at must be after valid_from")
    if options.max_clicks is not None and options.max_clicks < 1:
        raise InvalidLinkOption("max_clicks", "max_clicks must be at least 1")
    if options.slug is not None and options.private and not _restores_private_code(options):
        raise InvalidLinkOption("private", "a private link gets a random code: leave out slug")
    if options.password is not None:
        from shortlink.access.passwords import MAX_LENGTH, MIN_LENGTH

        if not MIN_LENGTH <= len(options.password) <= MAX_LENGTH:
            raise InvalidLinkOption("password", f"password must be {MIN_LENGTH}-{MAX_LENGTH} characters")


def check_destination_options(
    url: str,
    private: bool,
    crawlable: bool,
    expired_url: str | None,
    preview: "LinkPreview | None",
    utm: "Utm | None",
    policy: DestinationPolicy | None,
) -> tuple[str | None, "LinkPreview | None"]:
    """Refuse what the redirect could not honour: a crawlable private link (robots.txt would list
    its capability code), a UTM field the destination's own query already sets, a fallback or an
    image the destination checks refuse. Returns expired_url and the preview as stored."""
    if crawlable and private:
        raise InvalidLinkOption("crawlable", "crawlable: a private link cannot be (robots.txt would list its code)")
    if utm is not None:
        from shortlink.links.destinations import conflicting_utm, destination

        taken = conflicting_utm(url, utm)
        if taken is not None:
            field = "utm." + taken.removeprefix("utm_")
            raise InvalidLinkOption(field, f"{field}: url already sets {taken}; give it in one place")
        try:
            destination(url, utm, "")
        except DestinationTooLong:
            raise InvalidLinkOption("utm", f"utm: url with these fields passes {MAX_URL_LENGTH} characters") from None
    if expired_url is not None:
        expired_url = checked_url("expired_url", expired_url, policy)
    if preview is not None and preview.image is not None:
        preview = replace(preview, image=checked_url("preview.image", preview.image, policy))
    return expired_url, preview


def checked_url(field: str, url: str, policy: DestinationPolicy | None) -> str:
    """A URL besides the destination, passed through the destination checks; errors name `field`."""
    try:
        return validate_destination(url, policy)
    except InvalidUrl as error:
        raise InvalidLinkOption(field, f"{field}: {error}") from None


def _restores_private_code(options: LinkOptions) -> bool:
    return options.imported and options.slug is not None and len(options.slug) == PRIVATE_CODE_LENGTH


def checked_rules(document: "RulesDocument", policy: DestinationPolicy | None) -> "LinkRules":
    """The owner's rules, validated: each destination passes the same checks as `url`."""
    from shortlink.rules.model import parse_rules

    return parse_rules(document, lambda url: validate_destination(url, policy))


def password_hash_of(password: str) -> str:
    from shortlink.access.passwords import hash_password

    return hash_password(password)


def create_link(
    url: str,
    owner: str,
    codes: "CodeSource",
    links: LinkRepository,
    now: datetime,
    options: LinkOptions | None = None,
    policy: DestinationPolicy | None = None,
    allowance: "Allowance | None" = None,
) -> Link:
    """Give `url` a code and store it; the conditional put is the only uniqueness check.

    The code is the owner's slug, a private capability code, or the next generated code.
    `allowance` (a rate limit) is taken once the request is known to be valid, before anything
    is stored, and given back if the store refuses the link: a refused request costs no
    allowance and writes nothing."""
    options = options or LinkOptions()
    url = validate_destination(url, policy)
    check_options(options, now)
    slug = None
    if options.slug is not None:
        from shortlink.links.slugs import generated_look_alikes, validate_slug

        slug = validate_slug(options.slug)
        # A generated code that reads the same: reads only, paid by slugs of a code's shape.
        look_alikes = [link_key(options.domain, code) for code in generated_look_alikes(slug, codes.length)]
        look_alikes = [key for key in look_alikes if key != link_key(options.domain, slug)]
        if look_alikes and links.existing_codes(look_alikes):
            raise SlugTaken(slug)
    rules = checked_rules(options.rules, policy) if options.rules is not None else None
    expired_url, preview = check_destination_options(
        url, options.private, options.crawlable, options.expired_url, options.preview, options.utm, policy
    )
    options = replace(options, expired_url=expired_url, preview=preview)
    if allowance is None:
        return _store_new_link(url, owner, codes, links, now, options, slug, rules)
    allowance.take()
    try:
        return _store_new_link(url, owner, codes, links, now, options, slug, rules)
    except ShortlinkError:
        allowance.give_back()
        raise


# The options a new link stores as its owner chose them, by name: a field added to both LinkOptions
# and Link is stored without a third edit. The password and the rules are hashed or checked first.
_STORED_AS_CHOSEN = tuple(
    option.name
    for option in fields(LinkOptions)
    if option.name in {stored.name for stored in fields(Link)} - {"password_hash", "rules"}
)


def _store_new_link(
    url: str,
    owner: str,
    codes: "CodeSource",
    links: LinkRepository,
    now: datetime,
    options: LinkOptions,
    slug: str | None,
    rules: "LinkRules | None",
) -> Link:
    # After the allowance: hashing costs a deliberate ~0.3 s of CPU, not spent on refusals.
    password_hash = password_hash_of(options.password) if options.password is not None else options.password_hash

    unnumbered = Link(
        code="",
        url=url,
        owner=owner,
        created_at=now,
        custom_slug=options.slug is not None and not options.private,
        password_hash=password_hash,
        rules=rules,
        **{name: getattr(options, name) for name in _STORED_AS_CHOSEN},
    )
    from shortlink.links.slugs import slug_key

    if slug is not None:
        link = replace(unnumbered, code=slug)
        links.add_with_slug(link, link_key(options.domain, slug_key(slug)))
        return link
    for _ in range(MAX_CODE_ATTEMPTS):
        code = secrets.token_urlsafe(PRIVATE_CODE_BYTES) if options.private else codes.next_code()
        # A code that reads the same as a slug is skipped: one read, no write, per create.
        if not options.private and links.is_claimed(link_key(options.domain, slug_key(code))):
            continue
        link = replace(unnumbered, code=code)
        try:
            links.add(link)
        except CodeTaken:
            continue
        return link
    raise NoFreeCode(f"no free code after {MAX_CODE_ATTEMPTS} attempts")


def edit_link(
    code: str,
    owner: str,
    changes: LinkChanges,
    links: LinkRepository,
    now: datetime,
    policy: DestinationPolicy | None = None,
) -> Link:
    """Apply an owner's edit after checking the link as it would be: nothing is written unless
    the whole edit is acceptable."""
    current = owned_link(code, owner, links)
    if changes.url is not None:
        changes = replace(changes, url=validate_destination(changes.url, policy))
    if isinstance(changes.rules, dict):  # the owner's JSON form
        changes = replace(changes, rules=checked_rules(changes.rules, policy))
    edited = changes.applied_to(current)
    expired_url, preview = check_destination_options(
        edited.url,
        edited.private,
        edited.crawlable,
        changes.expired_url,
        changes.preview,
        edited.utm if changes.utm is not None or changes.url is not None else None,
        policy,
    )
    changes = replace(changes, expired_url=expired_url, preview=preview)
    check_options(
        LinkOptions(
            valid_from=edited.valid_from,
            expires_at=edited.expires_at if changes.expires_at is not None else None,
            redirect_type=edited.redirect_type,
            max_clicks=changes.max_clicks,
            password=changes.password,
        ),
        now,
    )
    if edited.valid_from and edited.expires_at and edited.expires_at <= edited.valid_from:
        raise InvalidLinkOption("expires_at", "expires_at must be after valid_from")
    if changes.password is not None:  # last: the hash's CPU is spent only on an edit that is accepted
        changes = replace(changes, password=None, password_hash=password_hash_of(changes.password))
    return links.update(code, owner, changes)


def delete_link(code: str, owner: str, links: LinkRepository, now: datetime) -> Link:
    """Soft delete: the link answers 410 and its code is never given to another link. The
    repository's conditional write checks ownership: no read first."""
    if not is_possible_key(code):
        raise LinkNotFound(split_key(code)[1])
    return links.set_deleted(code, owner, now)


def restore_link(code: str, owner: str, links: LinkRepository) -> Link:
    if not is_possible_key(code):
        raise LinkNotFound(split_key(code)[1])
    return links.set_deleted(code, owner, None)


def find_link(key: str, links: LinkSource) -> Link | None:
    """The link stored under `key`; a key we could never have stored is not looked up at all."""
    if not is_possible_key(key):
        return None
    return links.get(key)


def owned_link(key: str, owner: str, links: LinkSource) -> Link:
    """The link if `owner` owns it; another owner's link is reported as missing, not forbidden."""
    link = find_link(key, links)
    if link is None or link.owner != owner:
        raise LinkNotFound(split_key(key)[1])
    return link
