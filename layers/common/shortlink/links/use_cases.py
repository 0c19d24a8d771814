"""The operations on links (create, edit, delete, restore, look up), written against the ports."""

import secrets
from dataclasses import fields, replace
from datetime import datetime
from typing import TYPE_CHECKING

from shortlink.domains.model import link_key, split_key
from shortlink.errors import CodeTaken, InvalidLinkOption, LinkNotFound, NoFreeCode, ShortlinkError, SlugTaken
from shortlink.links.keys import is_possible_key
from shortlink.links.model import PRIVATE_CODE_BYTES, Link, LinkChanges, LinkOptions
from shortlink.links.option_checks import check_destination_options, check_options, checked_rules
from shortlink.links.ports import Allowance, LinkMoves, LinkRepository, LinkSource
from shortlink.web.urls import DestinationPolicy, refuse_loop, validate_destination

if TYPE_CHECKING:  # only create generates codes; the redirect must not import the generator
    from shortlink.codes.generator import CodeSource
    from shortlink.rules.model import LinkRules

# A collision means the code was taken by other means than our counter (a restored table,
# a custom slug); a handful of fresh ids is plenty before we give up loudly.
MAX_CODE_ATTEMPTS = 5


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


def move_link(
    key: str, owner: str, domain: str, links: LinkRepository, moves: LinkMoves, policy: DestinationPolicy
) -> Link:
    """The link of `key` moved to `domain` under the same code (its old address then answers
    404); CodeTaken when a link, or a slug that reads the same, holds the code there; InvalidUrl
    when its destination points back at this shortener (at a workspace's domain verified after
    the link was written: moved onto that domain, it would send its visitors to itself)."""
    current = owned_link(key, owner, links)
    if current.domain == domain:
        raise InvalidLinkOption("domain", "domain: the link is on that domain already")
    if current.deleted_at is not None:
        raise InvalidLinkOption("domain", "domain: a deleted link is not moved; restore it first")
    refuse_loop(current.url, policy)
    from shortlink.links.slugs import slug_key

    moved = replace(current, domain=domain)
    claim = link_key(domain, slug_key(current.code))
    if links.existing_codes([moved.key]) or (not current.private and links.is_claimed(claim)):
        raise CodeTaken(current.code)
    moves.move(current, moved, claim if current.custom_slug else None)
    return moved


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
