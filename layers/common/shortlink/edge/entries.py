"""The KeyValueStore's entries: which links the edge function (edge/viewer-request.js) may answer
at the POP, and the compact value it reads for each. Decided here, in one place; the sync writes
exactly what `edge_key`, `edge_entry` and `domains_entry` return.

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

from shortlink.domains.model import ShortDomains
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
# The entry naming the stack's short domains: the function's only setting. No link's key can be
# it: '.' never starts a code or a host name.
DOMAINS_KEY = ".domains"


def edge_key(link: Link) -> str:
    """The key the function looks `link` up by: its code, or `<host>/<code>` on a domain other
    than the default (Link.key)."""
    return link.key


def edge_entry(link: Link, now: datetime) -> str | None:
    """The store's value for `link` at `now`, or None when the edge may not answer it (the sync
    then removes its key): ineligible options, already expired, or over the store's limits."""
    if not _eligible(link, now) or len(edge_key(link).encode()) > MAX_KEY_BYTES:
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


def domains_entry(domains: ShortDomains) -> str:
    """The value of DOMAINS_KEY: the stack's short domains' host names, the default first (an
    empty list without Domains). Without it the function answers nothing: it could not tell a
    default-domain code from another domain's."""
    return json.dumps(list(domains.names), separators=(",", ":"))


def _eligible(link: Link, now: datetime) -> bool:
    return (
        link.deleted_at is None
        and link.password_hash is None
        and link.max_clicks is None
        and link.rules is None
        and link.redirect_type in REDIRECT_TYPES
        and (link.expires_at is None or now < link.expires_at)
    )
