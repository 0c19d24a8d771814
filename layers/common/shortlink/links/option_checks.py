"""The checks a link's options pass before anything is stored: each refusal names its field."""

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from shortlink.errors import DestinationTooLong, InvalidLinkOption, InvalidUrl
from shortlink.links.model import PRIVATE_CODE_LENGTH, REDIRECT_TYPES, LinkOptions
from shortlink.web.urls import MAX_URL_LENGTH, DestinationPolicy, validate_destination

if TYPE_CHECKING:
    from shortlink.links.destinations import Utm
    from shortlink.links.previews import LinkPreview
    from shortlink.rules.model import LinkRules, RulesDocument

# Dates further ahead are mistakes (and would overflow the expiry's TTL arithmetic).
MAX_SCHEDULE_AHEAD = timedelta(days=100 * 365)


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
    from shortlink.rules.parsing import parse_rules

    return parse_rules(document, lambda url: validate_destination(url, policy))
