"""Lambda's Extensions API for one locally run function, as far as internal extensions use it.

An extension registers at init and then asks for events (`/event/next`), which blocks. The
runner hands out an INVOKE event once the invocation's response is out, and before the next
invocation waits until the extension asks again: Lambda's order, so an extension that works
after the response here does so in Lambda too.
"""

import json
import queue
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REGISTER_PATH = "/2020-01-01/extension/register"
NEXT_PATH = "/2020-01-01/extension/event/next"


class ExtensionsApi:
    def __init__(self, function_name: str, region: str) -> None:
        self.function_name = function_name
        self._region = region
        self.registered = threading.Event()
        self._waiting = threading.Event()  # the extension is blocked in /event/next
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name=f"extensions-{function_name}", daemon=True).start()

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        return f"{host!s}:{port}"

    def wait_until_idle(self, timeout: float) -> bool:
        """Before an invocation: the previous one is over only when the extension asks again."""
        return not self.registered.is_set() or self._waiting.wait(timeout)

    def begin_invocation(self) -> None:
        self._waiting.clear()

    def release(self, timeout_seconds: float = 10) -> None:
        """The response is out: let the extension see this invocation."""
        if self.registered.is_set():
            self._events.put(
                {
                    "eventType": "INVOKE",
                    "deadlineMs": int((time.time() + timeout_seconds) * 1000),
                    "requestId": str(uuid.uuid4()),
                    "invokedFunctionArn": f"arn:aws:lambda:{self._region}:123456789012:function:{self.function_name}",
                    "tracing": {},
                }
            )

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                payload = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                if self.path != REGISTER_PATH:
                    self.send_error(404)
                    return
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                api.registered.set()
                api._waiting.clear()
                self._reply(
                    {"functionName": api.function_name, "functionVersion": "$LATEST", "handler": "app.lambda_handler"},
                    {"Lambda-Extension-Identifier": str(uuid.uuid4())},
                )

            def do_GET(self) -> None:
                if self.path != NEXT_PATH:
                    self.send_error(404)
                    return
                api._waiting.set()
                self._reply(api._events.get())

            def log_message(self, format: str, *args: Any) -> None:
                pass  # one line per HTTP request is the API's log, not this one's

        return Handler
