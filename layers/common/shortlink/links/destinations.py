"""Where a follow goes: the link's destination with its UTM fields and the visitor's query merged in.

The order of the query is fixed: the destination's own query exactly as saved, then the link's
UTM fields (utm_source, utm_medium, utm_campaign, utm_term, utm_content), then the visitor's
parameters in the order sent, leaving out every name the destination or the UTM fields already
give (the link's value wins). Added parameters are written as WHATWG
application/x-www-form-urlencoded (ada-url's URLSearchParams: a space is `+`). Only the query
grows: scheme, host and path are the saved ones, and the fragment stays at the end.

ada-url is imported only when something is added: a plain follow without a query never pays it.

A visitor's query is theirs to write: a parameter whose percent-escapes are not UTF-8 (`?q=%ff`,
which ada-url cannot decode) is forwarded with the same bytes, percent-encoded, never refused.
"""

from dataclasses import dataclass, fields
from urllib.parse import quote_plus, unquote_plus

from shortlink.errors import DestinationTooLong
from shortlink.web.urls import MAX_URL_LENGTH


@dataclass(frozen=True)
class Utm:
    """A link's UTM fields (Google Analytics' campaign parameters), each optional."""

    source: str | None = None
    medium: str | None = None
    campaign: str | None = None
    term: str | None = None
    content: str | None = None

    def pairs(self) -> list[tuple[str, str]]:
        """The query parameters these fields add, in the documented order."""
        return [(f"utm_{field.name}", value) for field in fields(self) if (value := getattr(self, field.name))]

    def document(self) -> dict[str, str]:
        """The fields that are set, as the API shows and the table stores them."""
        return {field.name: value for field in fields(self) if (value := getattr(self, field.name))}


def query_names(url: str) -> set[str]:
    """The parameter names of `url`'s own query."""
    from ada_url import URL

    return {name for name, _ in _pairs(URL(url).search.removeprefix("?"))}


def conflicting_utm(url: str, utm: Utm) -> str | None:
    """The first UTM field whose parameter the destination's own query already gives, if any:
    a value is set in one place, so which one counts is never a question."""
    names = query_names(url)
    return next((name for name, _ in utm.pairs() if name in names), None)


def destination(url: str, utm: Utm | None, visitor_query: str) -> str:
    """The URL a follow redirects to: `url` (a saved destination, WHATWG-serialized) with `utm`
    and the visitor's raw query string merged in as the module says; DestinationTooLong if the
    result would pass MAX_URL_LENGTH."""
    added = utm.pairs() if utm is not None else []
    if not added and not visitor_query:
        return url
    before_fragment, hash_sign, fragment = url.partition("#")
    path, _, own_query = before_fragment.partition("?")
    try:
        query = _merged(own_query, added, visitor_query)
    except UnicodeError:  # a percent-escape that is not UTF-8, which ada-url refuses to decode
        query = _merged_bytes(own_query, added, visitor_query)
    if query is None:
        return url
    merged = f"{path}?{query}{hash_sign}{fragment}"
    if len(merged) > MAX_URL_LENGTH:
        raise DestinationTooLong(f"the destination with the visitor's query passes {MAX_URL_LENGTH} characters")
    return merged


def _merged(own_query: str, added: list[tuple[str, str]], visitor_query: str) -> str | None:
    """The destination's query with `added` and the visitor's parameters (ada-url's parsing and
    serialization); None when nothing is added."""
    from ada_url import URLSearchParams

    if visitor_query:
        taken = set(URLSearchParams(own_query).keys()) | {name for name, _ in added}
        added = added + [(name, value) for name, value in URLSearchParams(visitor_query).items() if name not in taken]
    if not added:
        return None
    extra = URLSearchParams("")
    for name, value in added:
        extra.append(name, value)
    return f"{own_query}&{extra}" if own_query else str(extra)


def _pairs(query: str) -> list[tuple[str, str]]:
    """A query's parameters, decoded as WHATWG's urlencoded parser does but with the bytes that
    are not UTF-8 kept (as surrogates) rather than replaced."""
    pairs = []
    for segment in query.split("&"):
        if segment:
            name, _, value = segment.partition("=")
            pairs.append((unquote_plus(name, errors="surrogateescape"), unquote_plus(value, errors="surrogateescape")))
    return pairs


def _encoded(text: str) -> str:
    try:
        raw = text.encode("utf-8", "surrogateescape")  # the bytes _pairs kept
    except UnicodeEncodeError:  # a surrogate that no byte made: sent as its code point
        raw = text.encode("utf-8", "surrogatepass")
    return quote_plus(raw, safe="*-._")


def _merged_bytes(own_query: str, added: list[tuple[str, str]], visitor_query: str) -> str | None:
    """_merged for queries ada-url cannot decode: the same merge, each byte kept."""
    taken = {name for name, _ in _pairs(own_query)} | {name for name, _ in added}
    added = added + [(name, value) for name, value in _pairs(visitor_query) if name not in taken]
    if not added:
        return None
    extra = "&".join(f"{_encoded(name)}={_encoded(value)}" for name, value in added)
    return f"{own_query}&{extra}" if own_query else extra
