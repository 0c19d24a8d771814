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
- With the edge tier (EDGE_TIER=1), the viewer-request function runs first
  (tools.developers.devstack.edge_function): its response is the answer, no request reaching the API;
  otherwise the request it passes on (the viewer's host named) goes on as above. Either way
  `on_request` gets the request's real-time log record (tools.developers.devstack.edge_log_fields).
"""

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.developers.devstack.edge_function import EdgeFunction

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


def as_the_edge(
    app: Any,
    secret: str,
    names_the_host: bool,
    function: "EdgeFunction | None" = None,
    on_request: Callable[[dict[str, str]], None] | None = None,
) -> Any:
    """`app` (the local HTTP API, a WSGI app) behind the edge's changes to each request; with
    `function`, the edge tier's viewer-request function before it."""
    from shortlink.web.edge import EDGE_SECRET_HEADER  # the layer is importable once the stack runs
    from shortlink.web.hosts import EDGE_HOST_HEADER

    def to_the_origin(environ: dict[str, Any], start_response: Any) -> Any:
        viewer_host = environ.get("HTTP_HOST", "")
        environ[environ_name(EDGE_SECRET_HEADER)] = secret
        if names_the_host and function is None:  # with the tier, the function names it
            environ[environ_name(EDGE_HOST_HEADER)] = viewer_host
        environ["HTTP_HOST"] = API_HOST
        viewer = environ.get("REMOTE_ADDR", "")
        environ[environ_name("CloudFront-Viewer-Address")] = viewer_address(environ)
        forwarded = environ.get(environ_name("X-Forwarded-For"))
        environ[environ_name("X-Forwarded-For")] = f"{forwarded}, {viewer}" if forwarded else viewer
        environ["REMOTE_ADDR"] = EDGE_ADDRESS
        return app(environ, start_response)

    if function is None:
        return to_the_origin
    return with_the_function(to_the_origin, function, on_request)


def with_the_function(
    origin: Any, function: "EdgeFunction", on_request: Callable[[dict[str, str]], None] | None
) -> Any:
    """`origin` (a WSGI app) behind the viewer-request function, as a CloudFront behaviour runs it."""
    from tools.developers.devstack.edge_function import EdgeFunctionFailed, apply_request, header_value, request_id
    from tools.developers.devstack.edge_function import viewer_request_event as event_of
    from tools.developers.devstack.edge_log_fields import FROM_ORIGIN, FUNCTION_GENERATED, log_fields
    from tools.developers.devstack.route_keys import ROUTE_KEY

    def viewer_request(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        event = event_of(environ, request_id())
        try:
            result = function.run(event)
        except EdgeFunctionFailed:
            result = {"statusCode": 503, "statusDescription": "Service Unavailable", "headers": {}}
        if "statusCode" in result:
            status = int(result["statusCode"])
            environ[ROUTE_KEY] = f"edge {environ.get('REQUEST_METHOD', '')}"  # the request log's line
            headers = [(name, header_value(field)) for name, field in (result.get("headers") or {}).items()]
            start_response(f"{status} {result.get('statusDescription') or ''}".rstrip(), headers)
            body = str((result.get("body") or {}).get("data", "")) if isinstance(result.get("body"), dict) else ""
            answer: Iterable[bytes] = [body.encode()] if environ.get("REQUEST_METHOD") != "HEAD" else []
            result_type = FUNCTION_GENERATED
        else:
            apply_request(environ, result)
            statuses: list[int] = []

            def noting_status(status_line: str, headers: Any, *rest: Any) -> Any:
                statuses.append(int(status_line.split(" ", 1)[0]))
                return start_response(status_line, headers, *rest)

            answer = origin(environ, noting_status)
            status, result_type = (statuses[0] if statuses else 502), FROM_ORIGIN
        if on_request is not None:
            on_request(log_fields(event, status, result_type))
        return answer

    return viewer_request
