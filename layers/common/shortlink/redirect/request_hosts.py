"""The short domain a redirect request is for, read only from what a visitor cannot forge.

Through an edge of several domains (the request carries the edge's secret) the host is the one
CloudFront's viewer-request function copied from the viewer's Host (X-Shortlink-Host, replacing
one a viewer sent, on every path). An edge of one domain has no such function (template.yaml):
every request through it is the default domain's, and the header is not read. Without the edge,
the host is API Gateway's own `requestContext.domainName`: the custom domain the request came in
on, or the execute-api host. A Host header is never read: on the execute-api URL anyone may send
one.
"""

from typing import Any

from shortlink.config import settings
from shortlink.domains.model import KEY_SEPARATOR, ShortDomains
from shortlink.redirect.edge import came_through_edge, request_headers

EDGE_HOST_HEADER = "x-shortlink-host"
EDGE_HOST_SUFFIX = ".cloudfront.net"  # the edge's own host: CloudFront routes it to our distribution only


def request_host(event: dict[str, Any], domains: ShortDomains) -> tuple[str, bool]:
    """The host the request came in on, and whether it is one of the stack's own (execute-api,
    the edge's), which serve the default domain."""
    if settings().trust_edge_headers:  # no edge: no header is read at all
        headers = request_headers(event)
        if came_through_edge(headers, True):
            if not domains.several:  # no function names the host: a header is the viewer's own
                return "", True
            host = headers.get(EDGE_HOST_HEADER, "")
            return host, host.endswith(EDGE_HOST_SUFFIX)
    context = event.get("requestContext") or {}
    host = context.get("domainName") or ""
    api_id = context.get("apiId") or ""
    return host, bool(api_id) and host.startswith(f"{api_id}.execute-api.")


def key_prefix(event: dict[str, Any], domains: ShortDomains) -> str | None:
    """The key prefix of the links the request's host serves; None for a host of no domain."""
    host, own = request_host(event, domains)
    return domains.key_prefix_of_host(host, own)


def request_domain(event: dict[str, Any]) -> str | None:
    """The host name of the request's short domain ("" on a stack without Domains); None on a
    host that is none of the stack's."""
    domains = settings().short_domains
    if not domains.hosts:
        return ""
    prefix = key_prefix(event, domains)
    if prefix is None:
        return None
    return prefix.removesuffix(KEY_SEPARATOR) or domains.names[0]


def request_key(event: dict[str, Any], code: str) -> str | None:
    """The key of `code` on the request's domain; None on a host that is none of the stack's. A
    path that holds the separator (`go.example%2Fpromo`, decoded by API Gateway) gets a key no
    link has, never another domain's link's."""
    if KEY_SEPARATOR in code:
        return KEY_SEPARATOR + code
    config = settings()
    domains = config.short_domains
    if not domains.hosts:
        return code
    if not config.edge_secret:  # the hit path's usual case: API Gateway names a domain of ours
        known = domains.prefixes.get((event.get("requestContext") or {}).get("domainName") or "")
        if known is not None:
            return known + code
    prefix = key_prefix(event, domains)
    return None if prefix is None else prefix + code
