"""Clicks the edge answered, read from CloudFront's real-time log lines: the follows its
function redirected at the POP never reach the redirect, so their log lines are their clicks.

A line is the configured fields in their order (LOG_FIELDS, as edge.yaml's RealtimeLogConfig
names them), tab-separated, "-" for an empty value; the User-Agent, Referer, query and headers
URI-encoded as CloudFront writes them. Only a GET the function answered with a redirect
(x-edge-result-type FunctionGeneratedResponse) is a click: HEAD is a check, as at the origin, and
a prefetch is never answered at the edge. Each click's id is the line's x-edge-request-id, so a
line delivered twice is counted once (shortlink.clicks.tally's ledger).
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import unquote

from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.domains.model import ShortDomains
from shortlink.errors import DestinationTooLong
from shortlink.links.destinations import destination
from shortlink.links.model import Link
from shortlink.redirect.click_events import ClickReading, click_of
from shortlink.redirect.visitors import visitor_of
from shortlink.rules.model import IpAddress
from shortlink.web.addresses import viewer_address

# The real-time log's fields, in the order edge.yaml's RealtimeLogConfig lists them.
LOG_FIELDS = (
    "timestamp",
    "c-ip",
    "c-country",
    "cs-method",
    "cs-host",
    "cs-uri-stem",
    "cs-uri-query",
    "cs-user-agent",
    "cs-referer",
    "cs-headers",
    "x-edge-request-id",
    "x-edge-result-type",
    "sc-status",
)
ANSWERED_AT_EDGE = "FunctionGeneratedResponse"
REDIRECT_STATUSES = frozenset({"301", "302", "307", "308"})
EMPTY = "-"
MAX_REQUEST_ID_LENGTH = 64  # a pack id's limit; CloudFront's ids are 56 characters


@dataclass(frozen=True)
class EdgeFollow:
    """A follow the edge answered, as its log line tells it."""

    request_id: str
    at_epoch: float
    key: str  # the link's key, as the function looked it up
    query: str  # the visitor's query ("" without one)
    headers: Mapping[str, str]  # lower-case names, with the edge's country
    ip: IpAddress | None


def log_fields(line: str) -> dict[str, str] | None:
    """A log line's fields by name ("" for "-"); None for a line of another shape."""
    values = line.rstrip("\r\n").split("\t")
    if len(values) != len(LOG_FIELDS):
        return None
    return {name: "" if value == EMPTY else value for name, value in zip(LOG_FIELDS, values, strict=True)}


def edge_follow(fields: Mapping[str, str], domains: ShortDomains) -> EdgeFollow | None:
    """The follow a line records, if the function answered a GET with a redirect; None for any
    other line (passed on to the origin, HEAD, refused) or a malformed one."""
    if fields.get("x-edge-result-type") != ANSWERED_AT_EDGE or fields.get("cs-method") != "GET":
        return None
    if fields.get("sc-status") not in REDIRECT_STATUSES:
        return None
    request_id = fields.get("x-edge-request-id", "")
    code = unquote(fields.get("cs-uri-stem", "")).removeprefix("/")
    timestamp = fields.get("timestamp", "")
    if not 0 < len(request_id) <= MAX_REQUEST_ID_LENGTH or not code or not _is_epoch(timestamp):
        return None
    prefix = domains.key_prefix_of_host(fields.get("cs-host", "").lower(), True)
    if prefix is None:
        return None
    headers = request_headers(fields.get("cs-headers", ""))
    headers["user-agent"] = unquote(fields.get("cs-user-agent", ""))
    headers["referer"] = unquote(fields.get("cs-referer", ""))
    headers["cloudfront-viewer-country"] = fields.get("c-country", "")
    return EdgeFollow(
        request_id=request_id,
        at_epoch=float(timestamp),
        key=prefix + code,
        query=fields.get("cs-uri-query", ""),  # raw, as the function merged it
        headers=headers,
        ip=viewer_address(fields.get("c-ip", ""), {}, False),
    )


def request_headers(logged: str) -> dict[str, str]:
    """The viewer's headers from cs-headers ("name:value" lines, URI-encoded; CloudFront cuts
    the field at 800 bytes, so a header may be missing), by lower-case name."""
    headers: dict[str, str] = {}
    for line in unquote(logged).split("\n"):
        name, separator, value = line.partition(":")
        if separator and name.strip():
            headers.setdefault(name.strip().lower(), value.strip())
    return headers


def edge_click(follow: EdgeFollow, link: Link | None, salt_root: bytes | None, reading: ClickReading) -> ClickEvent:
    """The click of an edge-answered follow, as the redirect would have recorded it: its
    destination the link's with the visitor's query (as the function merged it), its owner and
    tags the link's now (None: the link is gone since)."""
    sent_to = ""
    if link is not None:
        try:
            sent_to = destination(link.url, link.utm, follow.query if link.forward_query else "")
        except DestinationTooLong:  # the function passes such a follow on: not a line of this kind
            sent_to = link.url
    visitor = visitor_of(follow.headers, True, follow.ip, _moment(follow.at_epoch))
    return click_of(
        follow.request_id, follow.key, follow.at_epoch, visitor, follow.headers, sent_to, link, salt_root, reading
    )


def lines_by_minute(
    lines: Iterable[tuple[str, str]], offered_again: Iterable[str], now: datetime
) -> dict[datetime, int]:
    """How many of `lines` (each with the id of the record that carried it, in the stream's
    order) ingest has read for good, by the minute their request was made (UTC): those of the
    records before the first `offered_again` (Kinesis offers that one and every later one again,
    so their lines are counted when they come back). A line whose timestamp does not read counts
    in `now`'s minute. What shortlink.edge.count_check compares with CloudFront's count."""
    again = set(offered_again)
    minutes: dict[datetime, int] = {}
    for record, line in lines:
        if record in again:
            break
        stamp = line.split("\t", 1)[0]
        moment = _moment(float(stamp)) if _is_epoch(stamp) else now
        minute = moment.replace(second=0, microsecond=0)
        minutes[minute] = minutes.get(minute, 0) + 1
    return minutes


def _is_epoch(text: str) -> bool:
    whole, _, fraction = text.partition(".")
    return whole.isascii() and whole.isdigit() and (not fraction or (fraction.isascii() and fraction.isdigit()))


def _moment(at_epoch: float) -> datetime:
    return datetime.fromtimestamp(at_epoch, UTC)


def edge_packs(
    lines: Iterable[tuple[str, str]],
    domains: ShortDomains,
    link_of: Callable[[str], Link | None],
    salt_root: bytes | None,
    reading: ClickReading,
) -> list[tuple[str, ClickPack]]:
    """The clicks of log `lines` (each with the id of the record that carried it), one pack per
    edge-answered follow whose id is its request id, in the order the follows were made (so that
    repeats are told as the redirect tells them); other lines are passed over."""
    follows = [
        (record, follow)
        for record, line in lines
        if (fields := log_fields(line)) is not None and (follow := edge_follow(fields, domains)) is not None
    ]
    follows.sort(key=lambda item: item[1].at_epoch)
    links: dict[str, Link | None] = {}
    packs: list[tuple[str, ClickPack]] = []
    for record, follow in follows:
        if follow.key not in links:
            links[follow.key] = link_of(follow.key)
        click = edge_click(follow, links[follow.key], salt_root, reading)
        packs.append((record, ClickPack(follow.request_id, (click,))))
    return packs
