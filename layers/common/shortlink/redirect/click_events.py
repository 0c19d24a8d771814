"""A click event built from the request that made it, after the visitor has the response: what
the stats count (country, device, browser, OS, referring host, language, campaign, bot and repeat
flags) and a daily-salted visitor hash. The address and User-Agent themselves go no further.

Everything costly is done here, never before the response: the bot lists (shortlink.clicks.bots),
the country database where the edge gives no country (shortlink.clicks.country_database), and
the memory of this environment's recent follows (shortlink.clicks.repeats)."""

import ipaddress
import logging
import re
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from shortlink.clicks.bots import is_bot
from shortlink.clicks.country_database import CountryDatabase
from shortlink.clicks.events import DIRECT, NO_CAMPAIGN, UNKNOWN, ClickEvent, hour_bucket
from shortlink.clicks.repeats import RecentFollows
from shortlink.clicks.visitor_hashes import daily_salt, visitor_hash
from shortlink.config import settings
from shortlink.links.model import Link
from shortlink.redirect.edge import request_headers
from shortlink.redirect.visitors import visitor_of
from shortlink.rules.countries import UNKNOWN_COUNTRY
from shortlink.rules.user_agents import human_device

logger = logging.getLogger("shortlink.clicks")

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


def recent_follows() -> RecentFollows:
    """This environment's memory of recent follows, with the configured window."""
    return _recent_follows(settings().repeat_click_window_seconds)


def country_database() -> CountryDatabase | None:
    """The configured country database, opened on the first click; None without one, or when it
    cannot be read (logged once: countries are then XX, clicks are still counted)."""
    return _country_database(settings().country_database)


@cache  # per setting: new settings (tests, the local stack) get their own
def _recent_follows(window_seconds: int) -> RecentFollows:
    return RecentFollows(window_seconds)


@cache
def _country_database(path: str) -> CountryDatabase | None:
    if not path:
        return None
    try:
        return CountryDatabase(path)
    except Exception:
        logger.exception("country database not readable: countries without the edge stay unknown")
        return None


def country_of(given: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> str:
    """The edge's country when it gave one, else the country database's for the address."""
    if given != UNKNOWN_COUNTRY or address is None:
        return given
    database = country_database()
    return database.country(address) if database is not None else given


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
    user_agent = headers.get("user-agent", "")
    visitor_id = ""
    if salt_root is not None:
        address = str(visitor.ip or "")
        visitor_id = visitor_hash(daily_salt(salt_root, at.date()), address, user_agent)
    bot = is_bot(user_agent)
    device = visitor.client.device
    if not bot and device == "bot":  # the rules' quick patterns took a person for a bot
        device = human_device(user_agent.lower(), headers)
    return ClickEvent(
        click_id=click_id,
        code=code,
        at=at,
        country=country_of(visitor.country, visitor.ip),
        device="bot" if bot else device,
        browser=visitor.client.browser,
        os=visitor.client.os,
        referrer=referrer_host(headers.get("referer", "")),
        language=primary_language(visitor.languages),
        campaign=campaign_of(destination),
        bot=bot,
        # Bots are not visitors: their repeats are bots' clicks already.
        repeat=not bot and recent_follows().is_repeat(code, visitor_id, at_epoch),
        visitor=visitor_id,
        owner=link.owner if link is not None else "",
        tags=link.tags if link is not None else (),
    )
