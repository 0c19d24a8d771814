"""Where a follow goes: the link's destination with its UTM fields and the visitor's query merged in.

The order of the query is fixed: the destination's own query exactly as saved, then the link's
UTM fields (utm_source, utm_medium, utm_campaign, utm_term, utm_content), then the visitor's
parameters in the order sent, leaving out every name the destination or the UTM fields already
give (the link's value wins). Added parameters are written as WHATWG
application/x-www-form-urlencoded (ada-url's URLSearchParams: a space is `+`). Only the query
grows: scheme, host and path are the saved ones, and the fragment stays at the end.

ada-url is imported only when something is added: a plain follow without a query never pays it.
"""

from dataclasses import dataclass, fields

from shortlink.errors import DestinationTooLong
from shortlink.links.urls import MAX_URL_LENGTH


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
    from ada_url import URL, URLSearchParams

    return set(URLSearchParams(URL(url).search).keys())


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
    from ada_url import URLSearchParams

    before_fragment, hash_sign, fragment = url.partition("#")
    path, _, own_query = before_fragment.partition("?")
    if visitor_query:
        taken = set(URLSearchParams(own_query).keys()) | {name for name, _ in added}
        added += [(name, value) for name, value in URLSearchParams(visitor_query).items() if name not in taken]
    if not added:
        return url
    extra = URLSearchParams("")
    for name, value in added:
        extra.append(name, value)
    query = f"{own_query}&{extra}" if own_query else str(extra)
    merged = f"{path}?{query}{hash_sign}{fragment}"
    if len(merged) > MAX_URL_LENGTH:
        raise DestinationTooLong(f"the destination with the visitor's query passes {MAX_URL_LENGTH} characters")
    return merged
