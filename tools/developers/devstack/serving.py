"""Where the local stack serves: the ports it binds, checked first, and the embedded moto server
that stands in for DynamoDB and SQS (every region's, kept apart by region); and how a local
stack starts up and says it is ready (the in-process one, its regions, and `sam local`)."""

import errno
import logging
import socket
import sys
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

HOST = "127.0.0.1"
# The banner's last line: what a test or a parent process waits for.
READY_LINE = "Press Ctrl-C to stop."


def log_to_stdout() -> None:
    """The local stack's log on stdout, each line with its time and logger; the libraries' only
    from WARNING up."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stdout)
    for noisy in ("samcli", "botocore", "moto", "werkzeug", "pynamodb"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def announce_ready(banner: str, running: ExitStack) -> None:
    """Print `banner`, ended by the ready line, and a line when `running` closes (the stack stops)."""
    print(f"{banner}{READY_LINE}", flush=True)
    running.callback(print, "\nStopping the local stack...", flush=True)


class PortTaken(SystemExit):
    pass


def ensure_free(port: int, advice: str) -> None:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise PortTaken(f"port {port} is already in use: {advice}") from None
            raise


def start_embedded_moto(
    moto_port: int, running: ExitStack, whole_streams: bool = False, gate: Callable[[Any], Any] | None = None
) -> str:
    """Start moto on `moto_port`, stopped with `running`; its URL. `whole_streams`: with
    tools.developers.moto_transactions installed, whose cancelled transaction leaves the table's stream as it
    was (moto's own puts back a copy of the whole table, stream included: records written since by
    other requests vanish, and sequence numbers come again), as the replicator needs. `gate`: a
    WSGI app made of moto's, that requests pass first."""
    from moto.server import ThreadedMotoServer

    from tools.developers.devstack.passkeys import install as emulate_passkeys
    from tools.developers.moto_transactions import allow_long_expressions, install

    allow_long_expressions()
    emulate_passkeys()  # Cognito's WebAuthn operations, which moto lacks
    if whole_streams:
        install()
    ensure_free(moto_port, "the embedded moto server needs it: set MOTO_PORT=<free port>")
    moto = ThreadedMotoServer(ip_address=HOST, port=moto_port, verbose=False)
    moto.start()
    if gate is not None and moto._server is not None:  # moto's server keeps its app there
        moto._server.app = gate(moto._server.app)
    running.callback(moto.stop)
    return f"http://{HOST}:{moto_port}"
