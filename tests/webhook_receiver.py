"""A webhook receiver on 127.0.0.1 for the tests: it keeps every request it gets and answers
with the status the test sets; `verified` checks each with the standardwebhooks verifier."""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook


@dataclass
class Received:
    headers: dict[str, str]
    body: str


@dataclass
class Receiver:
    url: str
    status: int = 204
    requests: list[Received] = field(default_factory=list)

    def verified(self, secret: str) -> list[dict[str, Any]]:
        """Each request's payload, each signature checked (WebhookVerificationError otherwise)."""
        return [Webhook(secret).verify(request.body, request.headers) for request in self.requests]

    def of_type(self, event_type: str) -> list[Received]:
        return [request for request in self.requests if json.loads(request.body)["type"] == event_type]


@contextmanager
def webhook_receiver(path: str = "/hook") -> Iterator[Receiver]:
    receiver = Receiver(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0"))).decode()
            with lock:
                receiver.requests.append(Received({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(receiver.status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
