"""The multi-region local stack's control endpoint, for tests and for trying a region's loss by hand:

    GET  /regions                   each region: its URL, whether it is home, whether it runs;
                                    and the replication's lag and writes still to apply
    POST /regions/<region>/stop     its functions stop where they are, its port refuses
                                    connections, its tables every request (region_outage.py),
                                    and its replication stops both ways
    POST /regions/<region>/start    it runs again; replication applies what came meanwhile

Bound to 127.0.0.1, with no authentication: it is a development tool.
"""

import json
import logging
import re
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from tools.developers.devstack.serving import HOST

logger = logging.getLogger("devstack")

ACTION_PATH = re.compile(r"/regions/([a-z0-9-]+)/(stop|start)")


class Region(Protocol):
    region: str
    running: bool

    @property
    def url(self) -> str: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class Replication(Protocol):
    @property
    def pending(self) -> int: ...

    def stop_region(self, region: str) -> None: ...

    def start_region(self, region: str) -> None: ...


@dataclass
class RegionControl:
    regions: dict[str, Region]
    replication: Replication
    home: str
    lag_ms: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def status(self) -> dict[str, Any]:
        return {
            "regions": [
                {"region": name, "url": region.url, "home": name == self.home, "running": region.running}
                for name, region in self.regions.items()
            ],
            "replication": {"lag_ms": self.lag_ms, "pending": self.replication.pending},
        }

    def stop(self, name: str) -> None:
        with self._lock:
            region = self.regions[name]
            if region.running:
                self.replication.stop_region(name)
                region.pause()
                logger.info("region %s stopped: its functions and its replication", name)

    def start(self, name: str) -> None:
        with self._lock:
            region = self.regions[name]
            if not region.running:
                region.resume()
                self.replication.start_region(name)
                logger.info("region %s started again", name)


def handler_for(control: RegionControl) -> type[BaseHTTPRequestHandler]:
    class ControlHandler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: dict[str, Any]) -> None:
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            if self.path == "/regions":
                self._answer(200, control.status())
            else:
                self._answer(404, {"message": "GET /regions is the only thing to read here"})

        def do_POST(self) -> None:
            match = ACTION_PATH.fullmatch(self.path)
            if not match:
                self._answer(404, {"message": "POST /regions/<region>/stop or /regions/<region>/start"})
                return
            name, action = match.groups()
            if name not in control.regions:
                self._answer(404, {"message": f"no region {name}; the stack runs {', '.join(control.regions)}"})
                return
            control.stop(name) if action == "stop" else control.start(name)
            self._answer(200, control.status())

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the stack's log says what happened to a region; requests need no line of their own

    return ControlHandler


def serve_control(control: RegionControl, port: int, running: ExitStack) -> None:
    """Serve `control` on `port` in a thread, shut down with `running`."""
    server = ThreadingHTTPServer((HOST, port), handler_for(control))
    threading.Thread(target=server.serve_forever, name="region-control", daemon=True).start()
    running.callback(server.server_close)
    running.callback(server.shutdown)
