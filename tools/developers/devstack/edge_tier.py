"""The edge tier's parts in the local stack (EDGE_TIER=1) besides the function the local edge
runs (tools.developers.devstack.edge_function): the KeyValueStore (tools.developers.devstack.key_value_store),
published where the function reads it after EDGE_PROPAGATION_MS (default 1,000 ms); the sync
(EdgeSyncFunction) on the links table's stream, and its reconciliation every
EDGE_RECONCILE_SECONDS (default 300) and once at start; the real-time log stream into ingest
(tools.developers.devstack.edge_logs). The store's API listens on EDGE_STORE_PORT (default: any free port).
Without EDGE_TIER none of them runs; with EDGE_SYNC=0 the store file is left to whoever writes
it (tests of the function alone) and only the log stream runs.
"""

import logging
import os
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tools.developers.devstack.edge_logs import LocalLogStream
from tools.developers.devstack.key_value_store import KeyValueStoreService, local_arn
from tools.developers.devstack.sqs_trigger import FunctionCaller

logger = logging.getLogger("devstack")

SYNC_FUNCTION = "EdgeSyncFunction"
ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE"
SCHEDULED_EVENT = {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}


def edge_tier_on() -> bool:
    return os.environ.get("EDGE_TIER") == "1"


@dataclass
class LocalEdgeTier:
    store: KeyValueStoreService | None  # None with EDGE_SYNC=0
    logs: LocalLogStream


def start_edge_tier(store_path: Path, caller: FunctionCaller, region: str, running: ExitStack) -> LocalEdgeTier:
    """Start the store and set the functions' environment for it; the sync's reconciliation and
    the log stream start with `start_consumers`."""
    logs = LocalLogStream(caller, region, float(os.environ.get("EDGE_LOG_REDELIVERY", "0")))
    if os.environ.get("EDGE_SYNC") == "0":
        return LocalEdgeTier(None, logs)
    delay = int(os.environ.get("EDGE_PROPAGATION_MS", "1000")) / 1000
    store = KeyValueStoreService(store_path, delay)
    arn = local_arn(str(store_path))
    store.create(arn)
    os.environ[ENDPOINT_VARIABLE] = store.start(int(os.environ.get("EDGE_STORE_PORT", "0")))
    os.environ["EDGE_STORE_ARN"] = arn
    running.callback(store.stop)
    return LocalEdgeTier(store, logs)


def start_consumers(tier: LocalEdgeTier, caller: FunctionCaller, running: ExitStack) -> None:
    """The log stream's poller, and the reconciliation: at once, then on its schedule."""
    # Daemon threads, told to stop and not waited for: a stop never waits on an ingest or a scan.
    tier.logs.start()
    running.callback(tier.logs.stopping.set)
    if tier.store is None:
        return
    every = float(os.environ.get("EDGE_RECONCILE_SECONDS", "300"))
    stopping = threading.Event()

    def reconcile_on_schedule() -> None:
        while True:
            try:
                caller.call(SYNC_FUNCTION, SCHEDULED_EVENT)
            except Exception:
                logger.exception("the edge store's reconciliation failed")
            if stopping.wait(every):
                return

    schedule = threading.Thread(target=reconcile_on_schedule, name="edge-reconcile", daemon=True)
    schedule.start()
    running.callback(stopping.set)
