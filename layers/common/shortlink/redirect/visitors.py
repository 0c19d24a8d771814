"""The visitor of a redirect as the rules see it, read from API Gateway's event.

Country and the viewer's address come from CloudFront's headers only on a request that
provably came through the edge: it carries the edge's secret, which CloudFront adds to every
request it sends to the API (template.yaml, EdgeDistribution). Anyone can call the execute-api
URL directly with any such header. Otherwise the country is XX (unknown) and the address is the
event's source IP. `trust_edge_headers` says that the stack has an edge (Settings).
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


def visitor_of(event: dict[str, Any], trust_edge_headers: bool, now: datetime) -> Visitor:
    headers = request_headers(event)
    user_agent = headers.get("user-agent", "")
    ip = client_ip(event, trust_edge_headers)
    return Visitor(
        country=viewer_country(headers, trust_edge_headers),
        client=classify(user_agent, headers),
        ip=ip,
        languages=preferred_languages(headers.get("accept-language", "")),
        now=now,
        sticky_key=f"{ip}\n{user_agent}".encode(),
    )


def viewer_country(headers: Mapping[str, str], trust_edge_headers: bool) -> str:
    """CloudFront-Viewer-Country through the edge; XX (unknown) otherwise, or when absent."""
    if not came_through_edge(headers, trust_edge_headers):
        return UNKNOWN_COUNTRY
    given = headers.get("cloudfront-viewer-country", "").strip().upper()
    return given if given in COUNTRY_CODES else UNKNOWN_COUNTRY


def client_ip(event: dict[str, Any], trust_edge_headers: bool) -> IpAddress | None:
    """The viewer's address: CloudFront-Viewer-Address ("ip:port") through the edge, else the
    source IP of the request. IPv4-mapped IPv6 addresses count as IPv4."""
    raw = ((event.get("requestContext") or {}).get("http") or {}).get("sourceIp", "")
    headers = request_headers(event)
    if came_through_edge(headers, trust_edge_headers):
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
