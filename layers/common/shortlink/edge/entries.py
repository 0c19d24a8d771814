"""The KeyValueStore's entries: which links the edge function (edge/viewer-request.js) may answer
at the POP, the key it reads each by and the compact value it finds. Decided here, in one place;
the sync writes exactly what `edge_key` and `edge_entry` return.

A link's key is `<host>/<code>`: the host name a viewer follows it on (the default domain's name for
its links), so the function makes one read per follow, built from the request alone, and a host the
stack does not serve simply misses. A stack without Domains is reached on the distribution's own
host only: its links keep their bare code, which is what the function reads on that host.

A link's entry is a JSON array, its first item the format's version:

    [1, location, status, flags, valid_from_ms, expires_at_ms]

- location: the destination with the link's UTM fields merged in, as the origin's Location of a
  follow without a query (shortlink.links.destinations); the function merges a visitor's query
  into it only where it reproduces the origin's merge byte for byte, else passes the request on.
- status: the redirect type (301, 302, 307, 308).
- flags: FORWARD_QUERY | CRAWLABLE | PREVIEW (bits). A link with a preview card is answered at
  the edge too, but for a request whose User-Agent may be a link-preview bot's: the function
  passes those on (a superset of shortlink.rules.user_agents.LINK_PREVIEW_PATTERN), and the
  origin gives them the card.
- valid_from_ms, expires_at_ms: epoch milliseconds or null. valid_from is rounded up and
  expires_at down, so the edge never answers a moment the origin would refuse; outside that
  window the function passes the request on and the origin answers 404 or 410.

Never at the edge: deleted links, password links, max_clicks, access rules and routes (what the
answer depends on is not in the request, or needs a write), links already expired, and entries
over CloudFront's limits (key 512 bytes, value 1,024 bytes).
"""

import json
import math
from datetime import datetime

from shortlink.domains.model import ShortDomains, link_key, split_key
from shortlink.errors import DestinationTooLong
from shortlink.links.destinations import destination
from shortlink.links.model import REDIRECT_TYPES, Link

ENTRY_VERSION = 1
# CloudFront KeyValueStore's limits on one entry (UTF-8 bytes).
MAX_KEY_BYTES = 512
MAX_VALUE_BYTES = 1024
FORWARD_QUERY = 1
CRAWLABLE = 2
PREVIEW = 4


def edge_key(link: Link, domains: ShortDomains) -> str | None:
    """The key the function reads for a follow of `link`: `<host>/<code>` on the host it is served
    on, its bare code on a stack without Domains; None when its domain is no longer one of
    `domains` or the key is over the store's limit (the edge never answers it)."""
    domain, code = split_key(link.key)
    if domain and domain not in domains.names[1:]:
        return None
    key = link_key(domains.public_name(domain) or "", code)
    return key if len(key.encode()) <= MAX_KEY_BYTES else None


def edge_item(link: Link, domains: ShortDomains, now: datetime) -> tuple[str, str] | None:
    """The key and value the store holds for `link` at `now`, or None when the edge may not answer it."""
    key = edge_key(link, domains)
    value = edge_entry(link, now) if key is not None else None
    return None if key is None or value is None else (key, value)


def edge_entry(link: Link, now: datetime) -> str | None:
    """The store's value for `link` at `now`, or None when the edge may not answer it (the sync
    then removes its key): ineligible options, already expired, or over the store's limits."""
    if not _eligible(link, now):
        return None
    try:
        location = destination(link.url, link.utm, "")
    except DestinationTooLong:
        return None
    flags = (FORWARD_QUERY if link.forward_query else 0) | (CRAWLABLE if link.crawlable else 0)
    flags |= PREVIEW if link.preview is not None else 0
    valid_from = None if link.valid_from is None else math.ceil(link.valid_from.timestamp() * 1000)
    expires_at = None if link.expires_at is None else math.floor(link.expires_at.timestamp() * 1000)
    fields = [ENTRY_VERSION, location, link.redirect_type, flags, valid_from, expires_at]
    value = json.dumps(fields, separators=(",", ":"))
    return value if len(value.encode()) <= MAX_VALUE_BYTES else None


def _eligible(link: Link, now: datetime) -> bool:
    return (
        link.deleted_at is None
        and link.password_hash is None
        and link.max_clicks is None
        and link.rules is None
        and link.redirect_type in REDIRECT_TYPES
        and (link.expires_at is None or now < link.expires_at)
    )
