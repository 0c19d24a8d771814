"""The edge tier in the local edge (EDGE_TIER=1): edge/viewer-request.js, the file as deployed,
run by Node (tools/developers/devstack/edge_host.mjs) on each request, its event built as CloudFront builds
it, its KeyValueStore the JSON object {key: value} the local stack publishes at `store_path`.

CloudFront's event (docs: CloudFront Functions event structure): header names lower-cased, each
`{value}` (`multiValue` when repeated), cookies apart from the headers, the query string as
`{name: {value, multiValue}}` with values as the viewer sent them, the path as sent, the viewer's
address, and a request id of CloudFront's shape.
"""

import json
import secrets
import subprocess
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
FUNCTION_FILE = ROOT / "edge" / "viewer-request.js"
HOST_SCRIPT = ROOT / "tools" / "developers" / "devstack" / "edge_host.mjs"
# vm.SourceTextModule runs the file in a context of its own, as CloudFront does (the Makefile's NODE_VM).
NODE_COMMAND = ("node", "--experimental-vm-modules", "--no-warnings")
DISTRIBUTION_DOMAIN = "devstack.cloudfront.localhost"
DISTRIBUTION_ID = "EDEVSTACKLOCAL"
# Headers a WSGI server keeps outside HTTP_*.
CONTENT_HEADERS = {"CONTENT_TYPE": "content-type", "CONTENT_LENGTH": "content-length"}
CONTENT_NAMES = frozenset(CONTENT_HEADERS.values())


class EdgeFunctionFailed(RuntimeError):
    """The function threw or the Node host stopped: CloudFront answers 503 (FunctionExecutionError)."""


class EdgeFunction:
    """The function file running in one Node process; `run` takes one event at a time."""

    def __init__(self, store_path: Path, function_file: Path = FUNCTION_FILE) -> None:
        self._process = subprocess.Popen(
            [*NODE_COMMAND, str(HOST_SCRIPT), str(function_file), str(store_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self._lock = threading.Lock()
        if self._readline() != "ready":
            raise EdgeFunctionFailed("the Node host did not start")

    def _readline(self) -> str:
        assert self._process.stdout is not None
        return self._process.stdout.readline().rstrip("\n")

    def run(self, event: dict[str, Any]) -> dict[str, Any]:
        """The function's answer to `event`: a response (`statusCode`) or the request to pass on."""
        with self._lock:
            assert self._process.stdin is not None
            try:
                self._process.stdin.write(json.dumps(event) + "\n")
                self._process.stdin.flush()
                line = self._readline()
            except (BrokenPipeError, ValueError) as error:
                raise EdgeFunctionFailed("the Node host stopped") from error
        if not line:
            raise EdgeFunctionFailed("the Node host stopped")
        answer = json.loads(line)
        if "error" in answer:
            raise EdgeFunctionFailed(answer["error"])
        result: dict[str, Any] = answer["result"]
        return result

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=5)


def request_id() -> str:
    """A request id of CloudFront's shape (56 URL-safe characters), unique per request."""
    return secrets.token_urlsafe(42)


def _fields(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """CloudFront's `{name: {value, multiValue}}`: the first value, and all of them when repeated."""
    fields: dict[str, Any] = {}
    for name, value in pairs:
        if name in fields:
            field = fields[name]
            field.setdefault("multiValue", [{"value": field["value"]}]).append({"value": value})
        else:
            fields[name] = {"value": value}
    return fields


def query_fields(raw_query: str) -> dict[str, Any]:
    """The query string as CloudFront's event holds it: each parameter in the order sent, its
    value as sent (percent-escapes kept)."""
    pairs = []
    for segment in raw_query.split("&"):
        if segment:
            name, _, value = segment.partition("=")
            pairs.append((name, value))
    return _fields(pairs)


def request_headers(environ: dict[str, Any]) -> list[tuple[str, str]]:
    """The viewer's headers from a WSGI environ, names lower-cased."""
    viewer = [(key, value) for key, value in environ.items() if key.startswith("HTTP_")]
    headers = [(key[5:].lower().replace("_", "-"), str(value)) for key, value in viewer]
    headers += [(header, str(environ[key])) for key, header in CONTENT_HEADERS.items() if environ.get(key)]
    return headers


def viewer_request_event(environ: dict[str, Any], edge_request_id: str) -> dict[str, Any]:
    """The viewer-request event CloudFront would give the function for this WSGI request."""
    headers = request_headers(environ)
    cookies = []
    for name, value in headers:
        if name == "cookie":
            for crumb in value.split(";"):
                cookie, _, cookie_value = crumb.strip().partition("=")
                if cookie:
                    cookies.append((cookie, cookie_value))
    raw_uri = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or environ.get("PATH_INFO") or "/")
    return {
        "version": "1.0",
        "context": {
            "distributionDomainName": DISTRIBUTION_DOMAIN,
            "distributionId": DISTRIBUTION_ID,
            "eventType": "viewer-request",
            "requestId": edge_request_id,
        },
        "viewer": {"ip": str(environ.get("REMOTE_ADDR", ""))},
        "request": {
            "method": str(environ.get("REQUEST_METHOD", "GET")),
            "uri": raw_uri.partition("?")[0],
            "querystring": query_fields(str(environ.get("QUERY_STRING", ""))),
            "headers": _fields([(name, value) for name, value in headers if name != "cookie"]),
            "cookies": _fields(cookies),
        },
    }


def header_value(field: dict[str, Any]) -> str:
    """One header's value from the function's `{value, multiValue}`."""
    values = field.get("multiValue") or [field]
    return ", ".join(str(item["value"]) for item in values)


def apply_request(environ: dict[str, Any], request: dict[str, Any]) -> None:
    """The request the function passes on, written back into `environ`: its headers (those it
    removed are removed). Cookies stay as sent."""
    from tools.developers.devstack.edge import environ_name

    headers = {name: field for name, field in (request.get("headers") or {}).items() if name not in CONTENT_NAMES}
    kept = {environ_name(name) for name in headers}
    for key in [key for key in environ if key.startswith("HTTP_") and key != "HTTP_COOKIE" and key not in kept]:
        del environ[key]
    for name, field in headers.items():
        environ[environ_name(name)] = header_value(field)


def edge_store_path(port: int) -> Path:
    """Where the local stack publishes the KeyValueStore's entries: EDGE_STORE_FILE, else a file
    of this port's stack in the temporary directory."""
    import os
    import tempfile

    given = os.environ.get("EDGE_STORE_FILE")
    return Path(given) if given else Path(tempfile.gettempdir()) / f"shortlink-edge-store-{port}.json"
