"""`make dev`: run the shortener locally on http://127.0.0.1:3000 with no AWS account and no Docker.

Environment: PORT (3000), MOTO_PORT (5005), AWS_ENDPOINT_URL (use that DynamoDB/SQS endpoint
instead of the embedded moto server), SHORTLINK_API_KEY (the key to create; else one is generated),
SHORTLINK_CREATE_RATE_LIMIT (links per key per minute; default: the template's).
"""

import errno
import logging
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from tools.devstack.local_env import function_environment
from tools.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
REGION = "us-east-1"
DEV_KEY_NAME = "local-dev"

logger = logging.getLogger("devstack")
http_log = logging.getLogger("devstack.http")


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


def request_log_handler() -> type:
    from werkzeug.serving import WSGIRequestHandler

    class RequestLogHandler(WSGIRequestHandler):
        """One plain line per request: method, path, status, milliseconds."""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            elapsed = (time.perf_counter() - self.started) * 1000 if hasattr(self, "started") else 0.0
            http_log.info("%s %s -> %s (%.1f ms)", self.command, self.path, code, elapsed)

        def handle_one_request(self) -> None:
            self.started = time.perf_counter()
            super().handle_one_request()

    return RequestLogHandler


def ensure_api_key(table: str, plaintext: str | None) -> str:
    from shortlink.adapters.dynamodb import DynamoApiKeyStore
    from shortlink.api_keys import generate_api_key, hash_api_key, key_id_for

    key = plaintext or generate_api_key()
    store = DynamoApiKeyStore(table)
    key_hash = hash_api_key(key)
    if store.find_by_hash(key_hash) is None:
        store.add(key_hash, key_id_for(key_hash), DEV_KEY_NAME)
    return key


def serve(port: int, moto_port: int) -> None:
    import boto3
    from samcli.local.apigw.local_apigw_service import LocalApigwService
    from werkzeug.serving import make_server

    from tools.devstack.resources import create_queues, create_tables
    from tools.devstack.runner import InProcessRunner
    from tools.devstack.sqs_trigger import SqsPoller

    template = LocalTemplate.load(ROOT / "template.yaml")
    runner = InProcessRunner(template.functions, template.root, REGION)
    service = LocalApigwService(api=template.api(), lambda_runner=runner, port=port, host=HOST)
    service.create()
    ensure_free(port, "stop what runs there or set PORT=<free port>")
    http_server = make_server(HOST, port, service._app, threaded=True, request_handler=request_log_handler())

    moto = None
    endpoint = os.environ.get("AWS_ENDPOINT_URL")
    if not endpoint:
        from moto.server import ThreadedMotoServer

        ensure_free(moto_port, "the embedded moto server needs it: set MOTO_PORT=<free port>")
        moto = ThreadedMotoServer(ip_address=HOST, port=moto_port, verbose=False)
        moto.start()
        endpoint = f"http://{HOST}:{moto_port}"
        os.environ["AWS_ENDPOINT_URL"] = endpoint

    dynamodb: Any = boto3.client("dynamodb")
    sqs: Any = boto3.client("sqs")
    create_tables(template, dynamodb)
    queue_urls = create_queues(template, sqs)

    os.environ.update(function_environment(template, queue_urls))
    os.environ["PUBLIC_BASE_URL"] = os.environ.get("SHORTLINK_PUBLIC_BASE_URL") or f"http://{HOST}:{port}"
    # The local stack stands in for the edge: country rules can be tried with
    # curl -H 'CloudFront-Viewer-Country: DE'. SHORTLINK_TRUST_EDGE_HEADERS=false behaves as without it.
    os.environ["TRUST_EDGE_HEADERS"] = os.environ.get("SHORTLINK_TRUST_EDGE_HEADERS", "true")
    if "SHORTLINK_CREATE_RATE_LIMIT" in os.environ:  # e.g. 0 for load tests that create many links
        os.environ["CREATE_RATE_LIMIT_PER_MINUTE"] = os.environ["SHORTLINK_CREATE_RATE_LIMIT"]
    runner.load_all()
    api_key = ensure_api_key(os.environ["API_KEYS_TABLE"], os.environ.get("SHORTLINK_API_KEY"))

    pollers = [
        SqsPoller(trigger, queue_urls[trigger.queue_id], sqs, runner, REGION) for trigger in template.sqs_triggers()
    ]
    for poller in pollers:
        poller.start()

    base = f"http://{HOST}:{port}"
    print(
        f"Shortlink local stack ready\n"
        f"  API:       {base}\n"
        f"  API key:   {api_key}\n"
        f"  DynamoDB/SQS endpoint: {endpoint}{' (embedded moto)' if moto else ''}\n"
        f"  Routes:    {', '.join(f'{m} {r.path}' for r in template.api().routes for m in r.methods)}\n"
        f"Try:\n"
        f"  curl -s -X POST {base}/links -H 'Authorization: Bearer {api_key}' \\\n"
        f"       -H 'Content-Type: application/json' -d '{{\"url\": \"https://example.com\"}}'\n"
        f"Press Ctrl-C to stop.",
        flush=True,
    )
    try:
        http_server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        print("\nStopping the local stack...", flush=True)
        for poller in pollers:
            poller.stopping.set()
        for poller in pollers:
            poller.join(timeout=5)
        http_server.server_close()
        runner.stop()
        if moto:
            moto.stop()
        print("Stopped.", flush=True)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stdout)
    for noisy in ("samcli", "botocore", "moto", "werkzeug", "pynamodb"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    os.environ.setdefault("AWS_DEFAULT_REGION", REGION)
    os.environ.setdefault("AWS_REGION", os.environ["AWS_DEFAULT_REGION"])
    if not os.environ.get("AWS_ENDPOINT_URL"):
        # The embedded endpoint accepts any credentials; never let a real profile be picked up.
        os.environ["AWS_ACCESS_KEY_ID"] = "local"
        os.environ["AWS_SECRET_ACCESS_KEY"] = "local"
        os.environ.pop("AWS_PROFILE", None)
    # SIGTERM (from a test or a process manager) stops as cleanly as Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        serve(int(os.environ.get("PORT", "3000")), int(os.environ.get("MOTO_PORT", "5005")))
    except PortTaken as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
