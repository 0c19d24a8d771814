"""A stopped region of the local stack is out of reach, as a region that is down: its port
refuses connections (a front forwards each connection to its functions while it runs) and its
tables answer nobody (a gate before the embedded moto refuses every DynamoDB request signed for
it), so the other regions meet what they would meet in an outage of that region, at once."""

import contextlib
import json
import re
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any

from tools.developers.devstack.serving import HOST

# SigV4's credential scope: <key>/<date>/<region>/<service>/aws4_request.
CREDENTIAL_SCOPE = re.compile(r"Credential=[^/,]+/\d{8}/([a-z0-9-]+)/([a-z0-9-]+)/aws4_request")
UNREACHABLE = {"__type": "com.amazonaws.dynamodb.v20120810#ServiceUnavailable"}

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def free_local_port() -> int:
    """A port no one listens on now (the kernel's choice), for a region's functions behind their front."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class RegionFront:
    """A region's public port: each connection carried to `upstream_port` while it is open; closed,
    a new connection is refused and those it carried end."""

    def __init__(self, port: int, upstream_port: int) -> None:
        self.port, self.upstream_port = port, upstream_port
        self._listener: socket.socket | None = None
        self._carried: set[socket.socket] = set()
        self._lock = threading.Lock()

    def open(self) -> None:
        listener = socket.create_server((HOST, self.port))  # SO_REUSEADDR: the port is ours again at once
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), name=f"front-{self.port}", daemon=True).start()

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            _end(listener)  # wakes the accept in its thread
        with self._lock:
            carried, self._carried = self._carried, set()
        for connection in carried:
            _end(connection)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=self._carry, args=(client,), daemon=True).start()

    def _carry(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection((HOST, self.upstream_port))
        except OSError:
            _end(client)
            return
        with self._lock:
            self._carried |= {client, upstream}
        back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
        back.start()
        _pump(client, upstream)
        back.join()
        with self._lock:
            self._carried -= {client, upstream}
        _end(client)
        _end(upstream)


def _pump(source: socket.socket, target: socket.socket) -> None:
    """Bytes from `source` to `target` until `source` ends, then `target`'s writing half closed."""
    try:
        while data := source.recv(65536):
            target.sendall(data)
        target.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _end(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already ended by the other side
        connection.shutdown(socket.SHUT_RDWR)
    connection.close()


class UnreachableTables:
    """A WSGI gate before the embedded moto: a DynamoDB request signed for a region in `stopped`
    gets 503 at once, as DynamoDB's ServiceUnavailable (SDKs retry it, then give up)."""

    def __init__(self) -> None:
        self.app: WsgiApp | None = None
        self.stopped: set[str] = set()

    def around(self, app: WsgiApp) -> "UnreachableTables":
        """This gate before `app` (moto's)."""
        self.app = app
        return self

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        scope = CREDENTIAL_SCOPE.search(environ.get("HTTP_AUTHORIZATION", ""))
        if scope and scope.group(2) == "dynamodb" and scope.group(1) in self.stopped:
            body = json.dumps({**UNREACHABLE, "message": f"region {scope.group(1)} is stopped"}).encode()
            start_response("503 Service Unavailable", [("Content-Type", "application/x-amz-json-1.0")])
            return [body]
        assert self.app is not None, "the gate stands before moto's app"
        return self.app(environ, start_response)
