"""The host a redirect request came in on, read only from what a visitor cannot forge.

Through an edge of several domains (the request carries the edge's secret) the host is the one
CloudFront's viewer-request function copied from the viewer's Host (X-Shortlink-Host, replacing
one a viewer sent, on every path). An edge of one domain has no such function (template.yaml):
every request through it is the default domain's, and the header is not read. Without the edge,
the host is the one the front names (API Gateway's `requestContext.domainName`): the custom
domain the request came in on, or the execute-api host. A Host header is never read: on the
execute-api URL anyone may send one.
"""

from collections.abc import Mapping

EDGE_HOST_HEADER = "x-shortlink-host"
EDGE_HOST_SUFFIX = ".cloudfront.net"  # the edge's own host: CloudFront routes it to our distribution only


def request_host(
    headers: Mapping[str, str], through_edge: bool, front_host: tuple[str, bool], several_domains: bool
) -> tuple[str, bool]:
    """The host the request came in on, and whether it is one of the stack's own (execute-api,
    the edge's), which serve the default domain. `headers`: lower-case names; `through_edge`:
    the request carried the edge's secret; `front_host`: the host the front names, and whether
    it is the front's own (shortlink.web.events)."""
    if through_edge:
        if not several_domains:  # no function names the host: a header is the viewer's own
            return "", True
        host = headers.get(EDGE_HOST_HEADER, "")
        return host, host.removesuffix(".").endswith(EDGE_HOST_SUFFIX)  # a final dot: the same host
    return front_host
