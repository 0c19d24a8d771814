"""A click event built from the request that made it, after the visitor has the response: what
the stats count (country, device, browser, OS, referring host, language, campaign, bot flag) and
a daily-salted visitor hash. The address and User-Agent themselves go no further."""

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from shortlink.clicks.events import DIRECT, NO_CAMPAIGN, UNKNOWN, ClickEvent, hour_bucket
from shortlink.clicks.visitor_hashes import daily_salt, visitor_hash
from shortlink.links.model import Link
from shortlink.redirect.edge import request_headers
from shortlink.redirect.visitors import visitor_of

# What a counter name may hold: visitors choose these values, so they are kept short and plain.
HOST_PATTERN = re.compile(r"[a-z0-9.-]{1,100}")
LANGUAGE_SUBTAG = re.compile(r"[a-z]{2,3}")
MAX_CAMPAIGN_LENGTH = 100


def referrer_host(referer: str) -> str:
    """The referring host without `www.`; (direct) without a Referer, unknown if malformed."""
    if not referer:
        return DIRECT
    try:
        host = urlsplit(referer).hostname
    except ValueError:
        return UNKNOWN
    host = (host or "").removeprefix("www.")
    return host if HOST_PATTERN.fullmatch(host) else UNKNOWN


def primary_language(languages: tuple[str, ...]) -> str:
    subtag = languages[0].split("-")[0] if languages else ""
    return subtag if LANGUAGE_SUBTAG.fullmatch(subtag) else UNKNOWN


def campaign_of(destination: str) -> str:
    """The utm_campaign in effect on the destination a visitor was sent to: the first of its
    query, which shortlink.links.destinations' order makes the destination's own, else the link's UTM
    field, else the visitor's forwarded one. Printable and bounded; (none) without one."""
    query = destination.partition("#")[0].partition("?")[2]
    if "utm_campaign=" not in query:
        return NO_CAMPAIGN
    value = next((value for name, value in parse_qsl(query, keep_blank_values=True) if name == "utm_campaign"), "")
    kept = "".join(char for char in value if char.isprintable()).strip()[:MAX_CAMPAIGN_LENGTH]
    return kept or NO_CAMPAIGN


def hour_of(at_epoch: float) -> str:
    return hour_bucket(datetime.fromtimestamp(at_epoch, UTC))


def click_from_request(
    click_id: str,
    code: str,
    at_epoch: float,
    request: dict[str, Any],
    destination: str,
    link: Link | None,
    trust_edge_headers: bool,
    salt_root: bytes | None,
) -> ClickEvent:
    """The click as the stats count it, from the same reading of the request the rules use and
    the destination it was sent to; its id and time are those it was recorded with, its owner and
    tags those of the `link` followed."""
    at = datetime.fromtimestamp(at_epoch, UTC)
    visitor = visitor_of(request, trust_edge_headers, at)
    headers = request_headers(request)
    visitor_id = ""
    if salt_root is not None:
        address = str(visitor.ip or "")
        visitor_id = visitor_hash(daily_salt(salt_root, at.date()), address, headers.get("user-agent", ""))
    return ClickEvent(
        click_id=click_id,
        code=code,
        at=at,
        country=visitor.country,
        device=visitor.client.device,
        browser=visitor.client.browser,
        os=visitor.client.os,
        referrer=referrer_host(headers.get("referer", "")),
        language=primary_language(visitor.languages),
        campaign=campaign_of(destination),
        bot=visitor.client.device == "bot",
        visitor=visitor_id,
        owner=link.owner if link is not None else "",
        tags=link.tags if link is not None else (),
    )
