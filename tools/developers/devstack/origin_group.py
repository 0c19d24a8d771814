"""`REGIONS=... make dev`'s edge front over the regions: what edge.yaml's distribution does with
EdgeFailoverOrigin, on one port (EDGE_FRONT_PORT, default PORT + the number of regions + 1).

- The redirects' behaviour is an origin group of the first two regions: a GET or HEAD goes to the
  first, and to the second when the first refuses the connection or answers 500, 502, 503 or
  504, per request (CloudFront's FailoverCriteria). It allows GET, HEAD and OPTIONS only: any
  other method is refused with 403, as CloudFront refuses it.
- The behaviours of their own in edge.yaml (the API's routes, the console, the unlock form's
  /unlock/*), read from the template, go to the first region only, every method allowed.

Each region's own port already stands in for CloudFront towards its API (tools.developers.devstack.edge:
the edge's secret, the viewer's host and address), so requests pass through unchanged, Host
included; with EDGE_TIER=1 the viewer-request function runs there, behind this front, where
CloudFront runs it before choosing an origin.
"""

import fnmatch
import http.client
import threading
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tools.developers.devstack.serving import HOST

ROOT = Path(__file__).resolve().parents[3]
FAILOVER_STATUSES = frozenset({500, 502, 503, 504})
GROUP_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FAILOVER_METHODS = frozenset({"GET", "HEAD"})  # CloudFront fails over these only
HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection"})
ORIGIN_TIMEOUT_SECONDS = 30


def own_behaviour_paths(template: Path = ROOT / "edge.yaml") -> tuple[str, ...]:
    """The path patterns of the distribution's behaviours other than the redirects' (edge.yaml)."""
    from samcli.yamlhelper import yaml_parse

    resources = yaml_parse(template.read_text())["Resources"]
    config = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]
    return tuple(behaviour["PathPattern"] for behaviour in config["CacheBehaviors"])


class OriginGroup:
    """The first region's port and the second's, and the behaviours that skip the group."""

    def __init__(self, primary: int, failover: int, own_paths: tuple[str, ...]) -> None:
        self.primary, self.failover, self.own_paths = primary, failover, own_paths

    def origins(self, method: str, path: str) -> tuple[int, ...] | None:
        """The ports to try in turn for a request; None when the behaviour refuses its method."""
        if any(fnmatch.fnmatchcase(path, pattern) for pattern in self.own_paths):
            return (self.primary,)
        if method not in GROUP_METHODS:
            return None
        return (self.primary, self.failover) if method in FAILOVER_METHODS else (self.primary,)


def forward(
    port: int, method: str, target: str, headers: list[tuple[str, str]], body: bytes
) -> tuple[int, str, list[tuple[str, str]], bytes]:
    """One request to the origin on `port`: its status, reason, headers and body (ConnectionError
    when it cannot be reached)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=ORIGIN_TIMEOUT_SECONDS)
    try:
        connection.request(method, target, body=body or None, headers=dict(headers))
        answer = connection.getresponse()
        return answer.status, answer.reason, answer.getheaders(), answer.read()
    except (OSError, http.client.HTTPException) as error:
        raise ConnectionError(str(error)) from error
    finally:
        connection.close()


def handler_for(group: OriginGroup) -> type[BaseHTTPRequestHandler]:
    class Front(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_one_request(self) -> None:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline or not self.parse_request():
                self.close_connection = True
                return
            self.answer()

        def answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            origins = group.origins(self.command, path)
            if origins is None:
                self.reply(
                    403,
                    "Forbidden",
                    [("Content-Type", "text/plain")],
                    b"This distribution is not configured to allow the HTTP request method.\n",
                )
                return
            headers = [(name, value) for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP]
            result = (502, "Bad Gateway", [("Content-Type", "text/plain")], b"No origin could be reached.\n")
            for port in origins:
                try:
                    result = forward(port, self.command, self.path, headers, body)
                except ConnectionError:
                    continue
                if result[0] not in FAILOVER_STATUSES:
                    break
            self.reply(*result)

        def reply(self, status: int, reason: str, headers: list[tuple[str, str]], body: bytes) -> None:
            self.send_response(status, reason)
            for name, value in headers:
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet: the regions log requests
            return

    return Front


def serve_origin_group(group: OriginGroup, port: int, running: ExitStack) -> None:
    """Serve the front on `port` in a thread, shut down with `running`."""
    server = ThreadingHTTPServer((HOST, port), handler_for(group))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="edge-front", daemon=True).start()
    running.callback(server.server_close)
    running.callback(server.shutdown)
