"""A click event built from the request that made it, after the visitor has the response: what
the stats count (country, device, browser, OS, referring host, language, campaign, the agent's
class and the repeat flag) and a daily-salted visitor hash. The address and User-Agent themselves go no further.

Everything costly is done here, never before the response: the bot lists (shortlink.clicks.bots),
ua-parser's reading of the device, browser and OS (shortlink.clicks.devices),
the country database where the edge gives no country (shortlink.clicks.country_database), the
scanner signals (shortlink.clicks.scanner_signals), and the memory of this environment's recent
follows (shortlink.clicks.repeats)."""

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit

from shortlink.clicks.agent_classes import PERSON
from shortlink.clicks.bots import click_class
from shortlink.clicks.country_database import CountryDatabase
from shortlink.clicks.devices import client_of
from shortlink.clicks.events import DIRECT, NO_CAMPAIGN, UNKNOWN, ClickEvent, hour_bucket
from shortlink.clicks.ip_databases import DatabaseSource
from shortlink.clicks.repeats import RecentFollows
from shortlink.clicks.scanner_signals import ScannerSignals
from shortlink.clicks.visitor_hashes import daily_salt, visitor_hash
from shortlink.links.model import Link
from shortlink.redirect.request import RedirectRequest
from shortlink.rules.countries import UNKNOWN_COUNTRY

if TYPE_CHECKING:
    from shortlink.rules.model import Visitor

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


@dataclass(frozen=True, slots=True)
class ClickReading:
    """What clicks are read with, made by the composition root: this environment's memory of
    recent follows, the country database and the scanner signals."""

    recent_follows: RecentFollows
    countries: DatabaseSource[CountryDatabase]
    scanner_signals: ScannerSignals


def country_of(
    given: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, source: DatabaseSource[CountryDatabase]
) -> str:
    """The edge's country when it gave one, else the country database's for the address."""
    if given != UNKNOWN_COUNTRY or address is None:
        return given
    database = source.current()
    return given if database is None else database.country(address)


def announces_preview(headers: Mapping[str, str]) -> bool:
    """A fetch that says it draws a preview (Safari's and others' `X-Purpose: preview`, or
    `Purpose: preview`): followed, but counted as a previewer's click, whatever its User-Agent."""
    return "preview" in headers.get("purpose", "").lower() or "preview" in headers.get("x-purpose", "").lower()


def hour_of(at_epoch: float) -> str:
    return hour_bucket(datetime.fromtimestamp(at_epoch, UTC))


def click_from_request(
    click_id: str,
    code: str,
    at_epoch: float,
    request: RedirectRequest,
    destination: str,
    link: Link | None,
    salt_root: bytes | None,
    reading: ClickReading,
) -> ClickEvent:
    """The click as the stats count it, from the request the rules read (its visitor, made once)
    and the destination it was sent to; its id and time are those it was recorded with, its owner
    and tags those of the `link` followed."""
    return click_of(click_id, code, at_epoch, request.visitor, request.headers, destination, link, salt_root, reading)


def click_of(
    click_id: str,
    code: str,
    at_epoch: float,
    visitor: "Visitor",
    headers: Mapping[str, str],
    destination: str,
    link: Link | None,
    salt_root: bytes | None,
    reading: ClickReading,
) -> ClickEvent:
    """The click of a follow by `visitor` with these request `headers` (lower-case names), sent to
    `destination`: the redirect's own follows and those the edge answered (shortlink.redirect.edge_logs)."""
    at = datetime.fromtimestamp(at_epoch, UTC)
    user_agent = headers.get("user-agent", "")
    visitor_id = ""
    if salt_root is not None:
        address = str(visitor.ip or "")
        visitor_id = visitor_hash(daily_salt(salt_root, at.date()), address, user_agent)
    scanner_likely = reading.scanner_signals.scanner_likely(visitor.ip, visitor_id, code, at_epoch)
    agent = "previewer" if announces_preview(headers) else click_class(user_agent, scanner_likely)
    bot = agent != PERSON
    client = client_of(user_agent, headers)
    return ClickEvent(
        click_id=click_id,
        code=code,
        at=at,
        country=country_of(visitor.country, visitor.ip, reading.countries),
        device="bot" if bot else client.device,
        browser=client.browser,
        os=client.os,
        referrer=referrer_host(headers.get("referer", "")),
        language=primary_language(visitor.languages),
        campaign=campaign_of(destination),
        agent=agent,
        # Bots are not visitors: their repeats are bots' clicks already.
        repeat=not bot and reading.recent_follows.is_repeat(code, visitor_id, at_epoch),
        visitor=visitor_id,
        owner=link.owner if link is not None else "",
        tags=link.tags if link is not None else (),
    )
