"""The visitor of a redirect as the rules see it, from the parts of its request already read
(shortlink.redirect.request).

Country comes from CloudFront's header only on a request that provably came through the edge
(as the address does: shortlink.web.addresses); anyone can call the execute-api URL directly
with any such header. Otherwise the country is XX (unknown).
"""

import re
from collections.abc import Mapping
from datetime import datetime

from shortlink.rules.countries import COUNTRY_CODES, UNKNOWN_COUNTRY
from shortlink.rules.model import LANGUAGE_PATTERN, IpAddress, Visitor
from shortlink.rules.user_agents import classify

# More are ignored: a header is a client's choice, its parsing is our cost.
MAX_LANGUAGES = 20


def visitor_of(headers: Mapping[str, str], through_edge: bool, ip: IpAddress | None, now: datetime) -> Visitor:
    """The visitor of a request with these `headers` (lower-case names), from address `ip`;
    `through_edge`: the request carried the edge's secret."""
    user_agent = headers.get("user-agent", "")
    return Visitor(
        country=viewer_country(headers, through_edge),
        client=classify(user_agent, headers),
        ip=ip,
        languages=preferred_languages(headers.get("accept-language", "")),
        now=now,
        sticky_key=f"{ip}\n{user_agent}".encode(),
    )


def viewer_country(headers: Mapping[str, str], through_edge: bool) -> str:
    """CloudFront-Viewer-Country through the edge; XX (unknown) otherwise, or when absent."""
    if not through_edge:
        return UNKNOWN_COUNTRY
    given = headers.get("cloudfront-viewer-country", "").strip().upper()
    return given if given in COUNTRY_CODES else UNKNOWN_COUNTRY


QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")


def preferred_languages(header: str) -> tuple[str, ...]:
    """Accept-Language tags, most preferred first: by quality value, then by their order.
    Tags with q=0, the wildcard and malformed entries are left out."""
    ranked = []
    for position, part in enumerate(header.split(",")[:MAX_LANGUAGES]):
        tag, _, parameters = part.partition(";")
        tag = tag.strip().lower()
        quality = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                # RFC 9110's qvalue in ASCII digits (float() also reads "NaN", "1e0" and other scripts' digits)
                quality = float(value) if QVALUE.fullmatch(value.strip()) else 0.0
        if 0.0 < quality <= 1.0 and LANGUAGE_PATTERN.fullmatch(tag):
            ranked.append((-quality, position, tag))
    return tuple(tag for _, _, tag in sorted(ranked))
