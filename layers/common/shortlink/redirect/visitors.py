"""The visitor of a redirect as the rules see it, from the parts of its request already read
(shortlink.redirect.request).

Country and the viewer's address come from CloudFront's headers only on a request that
provably came through the edge: it carries the edge's secret, which CloudFront adds to every
request it sends to the API (template.yaml, EdgeDistribution). Anyone can call the execute-api
URL directly with any such header. Otherwise the country is XX (unknown) and the address is the
event's source IP.
"""

import ipaddress
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from shortlink.redirect.edge import came_through_edge, request_headers
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


def viewer_address(source_ip: str, headers: Mapping[str, str], through_edge: bool) -> IpAddress | None:
    """The viewer's address: CloudFront-Viewer-Address ("ip:port") through the edge, else the
    request's `source_ip`. IPv4-mapped IPv6 addresses count as IPv4."""
    raw = source_ip
    if through_edge:
        viewer = headers.get("cloudfront-viewer-address", "")
        if viewer:
            raw = viewer.rsplit(":", 1)[0].strip("[]")
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def source_ip(event: dict[str, Any]) -> str:
    """The address API Gateway saw the request come from (CloudFront's, behind the edge)."""
    return str(((event.get("requestContext") or {}).get("http") or {}).get("sourceIp", ""))


def client_ip(event: dict[str, Any], edge_secret: str) -> IpAddress | None:
    """The viewer's address of an API Gateway event read for nothing else (the console's
    sign-in); the redirect reads it from its request (shortlink.redirect.request)."""
    headers = request_headers(event)
    return viewer_address(source_ip(event), headers, came_through_edge(headers, edge_secret))


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
