"""make dev's stand-in for the edge: what CloudFront does to a request on its way to the API, as
far as the functions can tell (edge.yaml, EdgeDistribution), so that code which reads a
request behind the edge is tried against the same headers locally.

- Host becomes the API's own host (AllViewerExceptHostHeader: API Gateway needs its own), so
  nothing may take Host for the viewer's.
- The edge's secret is added, replacing one the client sent.
- With several domains (the template deploys the viewer-request function for that alone), the
  viewer's Host is passed on as X-Shortlink-Host, replacing one the client sent.
- The viewer's address arrives as CloudFront-Viewer-Address (replacing one the client sent) and at
  the end of X-Forwarded-For; the connection, API Gateway's source IP, is the edge's.
- Other viewer headers stay as the client sent them: CloudFront-Viewer-Country has no local
  geolocation, so country rules are tried with curl -H 'CloudFront-Viewer-Country: DE'.
"""

from typing import Any

# The API's own host as the edge's origin names it (an execute-api host in AWS).
API_HOST = "devstack.execute-api.localhost"
# Where requests come from once they pass the edge (a CloudFront address in AWS; TEST-NET-1 here).
EDGE_ADDRESS = "192.0.2.1"


def environ_name(header: str) -> str:
    """The WSGI environ key of a request header."""
    return "HTTP_" + header.upper().replace("-", "_")


def viewer_address(environ: dict[str, Any]) -> str:
    """CloudFront-Viewer-Address of the connection: `ip:port`, an IPv6 address unbracketed."""
    return f"{environ.get('REMOTE_ADDR', '')}:{environ.get('REMOTE_PORT', '0')}"


def as_the_edge(app: Any, secret: str, names_the_host: bool) -> Any:
    """`app` (the local HTTP API, a WSGI app) behind the edge's changes to each request."""
    from shortlink.redirect.edge import EDGE_SECRET_HEADER  # the layer is importable once the stack runs
    from shortlink.redirect.request_hosts import EDGE_HOST_HEADER

    def through_the_edge(environ: dict[str, Any], start_response: Any) -> Any:
        viewer_host = environ.get("HTTP_HOST", "")
        environ[environ_name(EDGE_SECRET_HEADER)] = secret
        if names_the_host:
            environ[environ_name(EDGE_HOST_HEADER)] = viewer_host
        environ["HTTP_HOST"] = API_HOST
        viewer = environ.get("REMOTE_ADDR", "")
        environ[environ_name("CloudFront-Viewer-Address")] = viewer_address(environ)
        forwarded = environ.get(environ_name("X-Forwarded-For"))
        environ[environ_name("X-Forwarded-For")] = f"{forwarded}, {viewer}" if forwarded else viewer
        environ["REMOTE_ADDR"] = EDGE_ADDRESS
        return app(environ, start_response)

    return through_the_edge
