"""A small authoritative DNS server on loopback that answers TXT queries for the names it is
given (dnslib): what verifies a workspace's domain in the tests and on `make dev`, where no
public DNS holds the `_shortlink.<domain>` record. Every other name answers NXDOMAIN.

    python -m tools.developers.txt_records _shortlink.links.example.test=shortlink-verification=<token>
    # on 127.0.0.1:15353, where make dev's DNS_RESOLVER points

The stack's DNS adapter (shortlink.adapters.dns) queries it over UDP like any resolver.
"""

import argparse
import contextlib
import signal
import threading
from typing import Any

from dnslib import QTYPE, RCODE, RR, TXT
from dnslib.server import BaseResolver, DNSLogger, DNSServer

LOOPBACK = "127.0.0.1"


class TxtZone(BaseResolver):  # type: ignore[misc]  # dnslib is untyped
    """The TXT records it answers, by lower-case name without the final dot (changed at will)."""

    def __init__(self) -> None:
        self.records: dict[str, list[str]] = {}
        self.queries = 0

    def resolve(self, request: Any, handler: Any) -> Any:
        self.queries += 1
        reply = request.reply()
        reply.header.aa = 1
        name = str(request.q.qname).rstrip(".").lower()
        values = self.records.get(name)
        if values is None:
            reply.header.rcode = RCODE.NXDOMAIN
        elif request.q.qtype == QTYPE.TXT:
            for value in values:
                reply.add_answer(RR(request.q.qname, QTYPE.TXT, rdata=TXT(value), ttl=0))
        return reply


class TxtServer:
    """A TxtZone served over UDP on loopback (port 0: one the system picks), in a thread."""

    def __init__(self, port: int = 0) -> None:
        self.zone = TxtZone()
        self._server = DNSServer(self.zone, address=LOOPBACK, port=port, logger=DNSLogger(logf=lambda _: None))

    @property
    def address(self) -> str:
        """`127.0.0.1:<port>`: what DNS_RESOLVER names."""
        return f"{LOOPBACK}:{self._server.server.server_address[1]}"

    def start(self) -> "TxtServer":
        self._server.start_thread()
        return self

    def stop(self) -> None:
        self._server.stop()
        self._server.server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=15353)
    parser.add_argument("records", nargs="+", metavar="NAME=VALUE", help="a TXT record to answer")
    arguments = parser.parse_args()
    server = TxtServer(arguments.port)
    for record in arguments.records:
        name, _, value = record.partition("=")
        server.zone.records.setdefault(name.rstrip(".").lower(), []).append(value)
    server.start()
    print(f"answering TXT for {', '.join(server.zone.records)} on {server.address} (Ctrl-C stops)", flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    with contextlib.suppress(KeyboardInterrupt):
        stopped.wait()
    server.stop()


if __name__ == "__main__":
    main()
