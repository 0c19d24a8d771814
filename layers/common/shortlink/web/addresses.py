"""The client's address as any door may believe it.

CloudFront-Viewer-Address is read only on a request that provably came through the edge: it
carries the edge's secret, which CloudFront adds to every request it sends to the API
(template.yaml, EdgeDistribution). Anyone can call the execute-api URL directly with any such
header. Otherwise the address is the one the front saw the request come from.
"""

import ipaddress
from collections.abc import Mapping
from typing import Any

from shortlink.rules.model import IpAddress
from shortlink.web.edge import came_through_edge
from shortlink.web.events import event_shape


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


def client_ip(event: dict[str, Any], edge_secret: str) -> IpAddress | None:
    """The viewer's address of a front's event read for nothing else (the console's sign-in,
    the audit's entries); the redirect reads it from its request (shortlink.redirect.request)."""
    shape = event_shape(event)
    headers = shape.headers(event)
    return viewer_address(shape.source_ip(event), headers, came_through_edge(headers, edge_secret))
