"""Starts `python -m tools.developers.devstack` (what `make dev` runs) and talks real HTTP to it."""

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
READY_LINE = "Press Ctrl-C to stop."
# Installed by `npm ci` from package.json (make e2e runs it).
DYNALITE = ROOT / "node_modules" / "dynalite" / "cli.js"


# Ports handed out by this process: two servers started one after the other never get the same one.
_HANDED_OUT: set[int] = set()


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def _ports_of_this_worker(low: int) -> range:
    """This process's share of the ports below `low`: pytest-xdist's workers (make e2e runs two)
    each pick from a slice of their own, so two never start a server on the same port."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(worker) if worker.isascii() and worker.isdigit() else 0
    share = (low - low // 2) // max(workers, 1)
    first = low // 2 + index * share
    return range(first, first + share)


def free_port() -> int:
    """A free port below the kernel's ephemeral range. A port the kernel picks (bind to 0) is
    free only until it is released: the next outgoing connection of any process may take it as
    its local port before the server we start binds it ("port … is already in use" in CI)."""
    low = _ephemeral_low()
    candidates = _ports_of_this_worker(low)
    for _ in range(200):
        port = random.choice(candidates)
        if port in _HANDED_OUT:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    raise AssertionError(f"no free port in {candidates}")


def free_ports(count: int) -> int:
    """The first of `count` consecutive free ports (a stack of several regions takes PORT, PORT+1, ...)."""
    for _ in range(50):
        first = free_port()
        ports = range(first, first + count)
        if ports.stop > _ports_of_this_worker(_ephemeral_low()).stop:
            continue  # it would run into another worker's share
        taken = False
        for port in ports[1:]:
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    taken = True
                    break
        if not taken and not _HANDED_OUT.intersection(ports[1:]):
            _HANDED_OUT.update(ports)
            return first
    raise AssertionError(f"no {count} consecutive free ports")


def http_request(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> "Response":
    """One request over a new connection to 127.0.0.1:`port`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    payload = body if body is None or isinstance(body, str | bytes) else json.dumps(body)
    try:
        connection.request(method, path, body=payload, headers=headers or {})
        answer = connection.getresponse()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        connection.close()


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class RunningStack:
    process: subprocess.Popen[str]
    port: int
    moto_port: int
    endpoints: dict[str, str] = field(default_factory=dict)  # the AWS_ENDPOINT_URL* it was given
    lines: list[str] = field(default_factory=list)
    region_ports: dict[str, int] = field(default_factory=dict)  # a stack of several regions: each one's
    control_port: int = 0  # ... and its control endpoint (tools.developers.devstack.region_control)
    edge_front_port: int = 0  # ... and its edge front, an origin group (tools.developers.devstack.origin_group)

    @classmethod
    def start_regions(cls, regions: list[str], lag_ms: int, timeout: float = 240, **env: str) -> "RunningStack":
        """`REGIONS=... python -m tools.developers.devstack`: each region on its own port, the first one home."""
        port = free_ports(len(regions) + 2)
        settings = {
            "PORT": str(port),
            "REGIONS": ",".join(regions),
            "REPLICATION_LAG_MS": str(lag_ms),
            "CONTROL_PORT": str(port + len(regions)),
            "EDGE_FRONT_PORT": str(port + len(regions) + 1),
        }
        stack = cls.start(timeout, None, None, None, **settings, **env)
        stack.region_ports = {region: port + index for index, region in enumerate(regions)}
        stack.control_port = port + len(regions)
        stack.edge_front_port = port + len(regions) + 1
        return stack

    def in_region(
        self, region: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Response:
        """A request to one region's functions."""
        return http_request(self.region_ports[region], method, path, body, headers)

    def region_url(self, region: str) -> str:
        return f"http://127.0.0.1:{self.region_ports[region]}"

    def control(self, method: str, path: str) -> Any:
        """The control endpoint's answer (GET /regions, POST /regions/<region>/stop or /start)."""
        answer = http_request(self.control_port, method, path)
        assert answer.status == 200, answer.body
        return answer.json()

    @classmethod
    def start(
        cls,
        timeout: float = 90,
        endpoints: dict[str, str] | None = None,
        command: list[str] | None = None,
        popen: dict[str, Any] | None = None,
        **env: str,
    ) -> "RunningStack":
        """`python -m tools.developers.devstack`, or `command`; `endpoints`: AWS_ENDPOINT_URL* variables for the
        stack (and for tools run against it); `popen`: further arguments of Popen."""
        port, moto_port = int(env.pop("PORT", free_port())), int(env.pop("MOTO_PORT", free_port()))
        environment = {**os.environ, "PORT": str(port), "MOTO_PORT": str(moto_port)}
        for variable in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS"):
            environment.pop(variable, None)  # only the caller's own choice counts
        if endpoints and "SIGN_IN_ATTEMPTS_PER_WINDOW" not in env:
            # Every browser signs in from 127.0.0.1, and stacks on the session's dynalite share the
            # sign-in counts per address it stores: the limit itself is tested where it is alone.
            env["SIGN_IN_ATTEMPTS_PER_WINDOW"] = "1000"
        environment.update(env)
        environment.update(endpoints or {})
        process = subprocess.Popen(
            command or [sys.executable, "-m", "tools.developers.devstack"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            **(popen or {}),
        )
        stack = cls(process, port, moto_port, dict(endpoints or {}))
        threading.Thread(target=stack._read, daemon=True).start()
        deadline = time.monotonic() + timeout
        while READY_LINE not in stack.output():
            if process.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        return stack

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def output(self) -> str:
        return "".join(self.lines)

    @property
    def ready(self) -> bool:
        return READY_LINE in self.output()

    @property
    def api_key(self) -> str:
        for line in self.lines:
            if line.strip().startswith("API key:"):
                return line.split(":", 1)[1].strip()
        raise AssertionError(f"no API key printed:\n{self.output()}")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Response:
        return http_request(self.port, method, path, body, headers)

    def stop(self, sig: int = 15, timeout: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)


@dataclass
class Dynalite:
    """dynalite (npm), an independent DynamoDB implementation: unlike moto it refuses what
    DynamoDB refuses (reserved words in expressions, ...). It has no transactions and no TTL."""

    process: subprocess.Popen[str]
    port: int

    @classmethod
    def start(cls, timeout: float = 30) -> "Dynalite":
        port = free_port()
        process = subprocess.Popen(
            ["node", str(DYNALITE), "--host", "127.0.0.1", "--port", str(port), "--createTableMs", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert process.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return cls(process, port)
            except OSError:
                time.sleep(0.1)
        process.kill()
        raise AssertionError(f"dynalite did not start on port {port}:\n{process.stdout.read()}")

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
