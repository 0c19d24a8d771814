"""`make dev`: run the shortener locally on http://127.0.0.1:3000 with no AWS account and no Docker.

Environment: PORT (3000), MOTO_PORT (5005), AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_DYNAMODB and
AWS_ENDPOINT_URL_SQS (use those endpoints instead of the embedded moto server, which then starts
only for a service none of them covers), SHORTLINK_API_KEY (the key to create; else one is generated),
SHORTLINK_CREATE_RATE_LIMIT (links per key per minute; default: the template's),
SHORTLINK_LINK_CACHE_TTL (seconds a function keeps a link it read; default: the template's),
SHORTLINK_REDELIVERY (the chance that SQS delivers a handled message again; default 0),
SHORTLINK_OWNER_EMAIL (the first owner's email; default owner@example.com),
SHORTLINK_INVITATIONS=cognito (invitations go through the user pool as deployed, the embedded
moto printing the email the pool's trigger writes: tools.developers.devstack.invitation_emails; default: printed),
AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER (the user pool's endpoint; default: the embedded moto),
SSO=1 (a stand-in for the user pool's managed login on SSO_PORT, 5006, for the console's single
sign-on: tools.developers.devstack.managed_login; SSO_PROVIDER_NAME, SSO_BUTTON_LABEL, SSO_DEFAULT_ROLE,
SSO_WORKSPACE: default, the key's workspace).
REGIONS (several regions on this machine; see tools.developers.devstack.regions), HOME_REGION,
REPLICATION_LAG_MS, CONTROL_PORT.
EDGE_TIER=1 (the edge tier: edge/viewer-request.js runs in the local edge before the API, reading
the KeyValueStore entries published at EDGE_STORE_FILE; see tools.developers.devstack.edge_function; the
store's API, the sync and the real-time log stream into ingest: tools.developers.devstack.edge_tier, with
EDGE_PROPAGATION_MS, EDGE_RECONCILE_SECONDS, EDGE_STORE_PORT, EDGE_LOG_REDELIVERY).
FRONT=alb (or alb-multi-value): the functions are sent the events of an Application Load Balancer
instead of the HTTP API's, and answer it (tools.developers.devstack.load_balancer); default http-api.
LOAD_BALANCER_PORT: a load balancer front (single-value) on this port as well, to the same functions.
CLICK_LAKE=1 (the click lake: ingest's rows into a local Firehose on CLICK_LAKE_PORT, 5007, that writes
Parquet into the embedded moto's S3 every CLICK_LAKE_BUFFER_SECONDS, 5, and the lake's local Athena on the
same port for the raw exports and the daily check; see tools.developers.devstack.firehose and .athena,
and docs/click-lake.md).
"""

import logging
import os
import signal
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from tools.developers.devstack.edge import as_the_edge
from tools.developers.devstack.edge_tier import (
    SYNC_FUNCTION,
    LocalEdgeTier,
    edge_tier_on,
    start_consumers,
    start_edge_tier,
)
from tools.developers.devstack.firehose import click_lake_on, start_click_lake
from tools.developers.devstack.invitation_emails import emulate_invitation_emails, pool_sends_invitations
from tools.developers.devstack.local_env import DEV_DOMAIN_SETTINGS, DEV_EDGE_SECRET, function_environment
from tools.developers.devstack.password_reset_codes import emulate_password_reset_codes
from tools.developers.devstack.people import (
    COGNITO_ENDPOINT_VARIABLE,
    DEV_OWNER_EMAIL,
    LocalPool,
    check_totp_codes,
    create_user_pool,
    ensure_first_owner,
    first_owner_line,
    shared_pool,
    workspace_of,
)
from tools.developers.devstack.regions import RegionsSetting
from tools.developers.devstack.serving import (
    HOST,
    PortTaken,
    announce_ready,
    ensure_free,
    log_to_stdout,
    start_embedded_moto,
)
from tools.developers.devstack.sqs_trigger import redelivery_chance
from tools.developers.devstack.template import LocalTemplate
from tools.operators.aws_target import LOCAL_SERVICES, choose_local_credentials, given_endpoint
from tools.operators.click_lake.store import LOCAL_BUCKET

ROOT = Path(__file__).resolve().parents[3]
REGION = "us-east-1"
DEV_KEY_NAME = "local-dev"

logger = logging.getLogger("devstack")
http_log = logging.getLogger("devstack.http")


class StopRequested(BaseException):
    """A stop signal arrived: leave whatever is running, through its cleanups. A BaseException,
    as KeyboardInterrupt is, so that no `except Exception` on the way (botocore wraps what its
    HTTP send raises into HTTPClientError) turns it into an error."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def request_log_handler() -> type:
    from werkzeug.serving import WSGIRequestHandler

    from tools.developers.devstack.http_api import READ_SECONDS
    from tools.developers.devstack.route_keys import route_key_of

    class RequestLogHandler(WSGIRequestHandler):
        """One plain line per request: route key, status, milliseconds. The route, never the
        path: a private link's code is its capability, and logs must not hold it."""

        timeout = READ_SECONDS  # a client that stops sending is not waited for

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            elapsed = (time.perf_counter() - self.started) * 1000 if hasattr(self, "started") else 0.0
            route = route_key_of(getattr(self, "environ", {}))
            http_log.info("%s -> %s (%.1f ms)", route if route != "-" else f"{self.command} (no route)", code, elapsed)

        def handle_one_request(self) -> None:
            self.started = time.perf_counter()
            super().handle_one_request()

    return RequestLogHandler


def ensure_api_key(table: str, plaintext: str | None) -> str:
    from shortlink.access.api_keys import generate_api_key, hash_api_key, key_id_for
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore

    key = plaintext or generate_api_key()
    store = DynamoApiKeyStore(table)
    key_hash = hash_api_key(key)
    if store.find_by_hash(key_hash) is None:
        store.add(key_hash, key_id_for(key_hash), DEV_KEY_NAME)
    return key


def endpoint_lines(endpoints: dict[str, str], embedded: set[str]) -> str:
    """The banner's say on where DynamoDB and SQS are, and which of them the embedded moto serves."""

    def described(service: str) -> str:
        return f"{endpoints[service]}{' (embedded moto)' if service in embedded else ''}"

    if endpoints["dynamodb"] == endpoints["sqs"]:
        return f"  DynamoDB/SQS endpoint: {described('dynamodb')}\n"
    return f"  DynamoDB endpoint: {described('dynamodb')}\n  SQS endpoint:      {described('sqs')}\n"


def cognito_line(endpoint: str, endpoints: dict[str, str]) -> str:
    """The banner's say on where the user pool is, when not where DynamoDB is."""
    return "" if endpoint == endpoints["dynamodb"] else f"  Cognito endpoint:  {endpoint}\n"


def passkeys_line(pool: LocalPool, port: int) -> str:
    """The banner's say on passkeys: where the console offers them (their relying party's host)."""
    if not pool.passkey_relying_party:
        return ""
    host = pool.passkey_relying_party
    return f"  Passkeys:  at http://{host}:{port}/console (their relying party, {host}, is that host)\n"


def serve(port: int, moto_port: int, running: ExitStack) -> None:
    """Start everything, each part registered on `running` to be stopped in reverse order."""
    import boto3
    from werkzeug.serving import make_server

    from tools.developers.devstack.event_sources import event_sources
    from tools.developers.devstack.http_api import HttpApiService
    from tools.developers.devstack.load_balancer import (
        LoadBalancerService,
        front_of,
        health_check,
        load_balancer_service,
    )
    from tools.developers.devstack.resources import create_queues, create_tables
    from tools.developers.devstack.runner import InProcessRunner

    region = os.environ.get("AWS_REGION", REGION)
    template = LocalTemplate.load(ROOT / "template.yaml")
    runner = InProcessRunner(template.functions, template.root, region)
    running.callback(runner.stop)
    front = front_of(os.environ.get("FRONT"))
    front_service = HttpApiService if front == "http-api" else load_balancer_service(front == "alb-multi-value", region)
    api = front_service(api=template.api(), lambda_runner=runner, port=port, host=HOST)
    api.create()
    ensure_free(port, "stop what runs there or set PORT=<free port>")
    http_server = make_server(HOST, port, api._app, threaded=True, request_handler=request_log_handler())
    running.callback(http_server.server_close)
    balanced = api if isinstance(api, LoadBalancerService) else None
    balancer_port = int(os.environ.get("LOAD_BALANCER_PORT") or 0)
    if balancer_port:  # both fronts at once: one stack, each function reached either way
        balancer = load_balancer_service(False, region)
        balanced = balancer(api=template.api(), lambda_runner=runner, port=balancer_port, host=HOST)
        balanced.create()
        ensure_free(balancer_port, "stop what runs there or set LOAD_BALANCER_PORT=<free port>")
        balancer_server = make_server(
            HOST, balancer_port, balanced._app, threaded=True, request_handler=request_log_handler()
        )
        running.callback(balancer_server.server_close)
        running.callback(balancer_server.shutdown)
        threading.Thread(target=balancer_server.serve_forever, name="load-balancer", daemon=True).start()

    # An endpoint the environment names for a service replaces the embedded moto for it; moto
    # starts only if a service is left to it.
    embedded = {service for service in LOCAL_SERVICES if given_endpoint(service) is None}
    # The user pool is the embedded moto's too, unless the environment names a Cognito endpoint.
    cognito_endpoint = os.environ.get(COGNITO_ENDPOINT_VARIABLE) or os.environ.get("AWS_ENDPOINT_URL")
    moto_url = f"http://{HOST}:{moto_port}"
    if embedded or cognito_endpoint is None or click_lake_on():
        check_totp_codes()
        emulate_password_reset_codes()  # codes printed as invitations are, checked as Cognito does
        start_embedded_moto(moto_port, running)
    endpoints = {service: given_endpoint(service) or moto_url for service in LOCAL_SERVICES}
    for service, endpoint in endpoints.items():
        os.environ[LOCAL_SERVICES[service]] = endpoint
    cognito_endpoint = cognito_endpoint or moto_url
    os.environ[COGNITO_ENDPOINT_VARIABLE] = cognito_endpoint

    dynamodb: Any = boto3.client("dynamodb")
    sqs: Any = boto3.client("sqs")
    without_ttl = create_tables(template, dynamodb)
    queue_urls = create_queues(template, sqs)

    os.environ.update(function_environment(template, queue_urls))
    cognito: Any = boto3.client("cognito-idp", endpoint_url=cognito_endpoint)
    pool = shared_pool(cognito_endpoint) or create_user_pool(template, cognito, cognito_endpoint)
    os.environ.update(pool.environment())
    lake_line = ""
    if click_lake_on():
        os.environ.update(start_click_lake(template, moto_url, running))
        query = "python -m tools.operators.click_lake query top-links --local"
        lake_line = f"  Lake:      s3://{LOCAL_BUCKET}/clicks/ ({query})\n"
    if pool_sends_invitations():  # as deployed, moto standing in for Cognito's email (its trigger run here)
        os.environ.update(emulate_invitation_emails(template))
    os.environ["PUBLIC_BASE_URL"] = os.environ.get("SHORTLINK_PUBLIC_BASE_URL") or f"http://{HOST}:{port}"
    os.environ["EDGE_SECRET"] = DEV_EDGE_SECRET
    # Two short domains: 127.0.0.1 (the default) and go.localhost (curl resolves *.localhost to
    # 127.0.0.1 itself), the second with fallback pages and app-link files to try.
    os.environ["SHORT_DOMAINS"] = os.environ.get("SHORTLINK_DOMAINS") or f"{HOST}:{port},go.localhost:{port}"
    os.environ["DOMAIN_SETTINGS"] = os.environ.get("SHORTLINK_DOMAIN_SETTINGS") or DEV_DOMAIN_SETTINGS
    if "SHORTLINK_CREATE_RATE_LIMIT" in os.environ:  # e.g. 0 for load tests that create many links
        os.environ["CREATE_RATE_LIMIT_PER_MINUTE"] = os.environ["SHORTLINK_CREATE_RATE_LIMIT"]
    if "SHORTLINK_LINK_CACHE_TTL" in os.environ:  # e.g. 1 to see an edit reach every region sooner
        os.environ["LINK_CACHE_TTL_SECONDS"] = os.environ["SHORTLINK_LINK_CACHE_TTL"]
    if os.environ.get("SSO") == "1":
        from tools.developers.devstack.managed_login import start_managed_login

        sso_port = int(os.environ.get("SSO_PORT", "5006"))
        base_url = os.environ["PUBLIC_BASE_URL"]
        os.environ.update(start_managed_login(sso_port, region, pool.user_pool_id, base_url, running, cognito))
    runner.load_all()
    if balanced is not None:  # as a load balancer registers its target: healthy before it is sent visitors
        status = health_check(balanced, "RedirectFunction")
        print(f"Load balancer front: the redirect's target health check answered {status}", flush=True)
    tier: LocalEdgeTier | None = None
    # The local stack stands in for the edge: country rules can be tried with
    # curl -H 'CloudFront-Viewer-Country: DE'. SHORTLINK_TRUST_EDGE_HEADERS=false behaves as without it.
    if os.environ.get("SHORTLINK_TRUST_EDGE_HEADERS", "true") != "false":
        from shortlink.domains.model import ShortDomains

        domains = ShortDomains.parse(os.environ["SHORT_DOMAINS"])
        function = None
        if edge_tier_on():
            from tools.developers.devstack.edge_function import EdgeFunction, edge_store_path

            store_path = edge_store_path(port)
            tier = start_edge_tier(store_path, runner, region, running)
            function = EdgeFunction(store_path)
            running.callback(function.close)
            print(f"Edge tier: edge/viewer-request.js under Node, its store published at {store_path}", flush=True)
        on_request = tier.logs.on_request if tier is not None else None
        http_server.app = as_the_edge(http_server.app, DEV_EDGE_SECRET, domains.several, function, on_request)
    api_key = ensure_api_key(os.environ["API_KEYS_TABLE"], os.environ.get("SHORTLINK_API_KEY"))
    owner_email = os.environ.get("SHORTLINK_OWNER_EMAIL") or DEV_OWNER_EMAIL
    workspace_id = workspace_of(os.environ["API_KEYS_TABLE"], api_key)
    base = f"http://{HOST}:{port}"
    if shared_pool(cognito_endpoint):  # a region of several: the stack made the pool and its first owner
        console_line = f"  Console:   {base}/console/sign-in as a person of the regions' one user pool\n"
    else:
        password = ensure_first_owner(pool, cognito, os.environ["API_KEYS_TABLE"], workspace_id, owner_email)
        console_line = first_owner_line(f"{base}/console/sign-in", owner_email, password)
    sso_line = ""
    if os.environ.get("SSO") == "1":
        os.environ["SSO_WORKSPACE"] = os.environ.get("SSO_WORKSPACE") or workspace_id
        sso_line = f"  SSO:       {os.environ['SSO_LOGIN_URL']} (the managed login's stand-in)\n"

    streams_client = boto3.client("dynamodbstreams", endpoint_url=endpoints["dynamodb"])
    sync_off = frozenset() if tier is not None and tier.store is not None else frozenset({SYNC_FUNCTION})
    sources = event_sources(
        template, queue_urls, (sqs, dynamodb, streams_client), lambda _: runner, region, redelivery_chance(), sync_off
    )
    for poller in sources.pollers:
        poller.start()
        running.callback(poller.join, timeout=5)
        running.callback(poller.stopping.set)
    if tier is not None:
        start_consumers(tier, runner, running)

    ttl_line = (
        f"  TTL:       not supported by this DynamoDB ({', '.join(without_ttl)}): expired items are never deleted\n"
        if without_ttl
        else ""
    )
    streams_line = (
        f"  Streams:   not supported by this DynamoDB ({', '.join(sources.without_streams)}): GET /stats stays empty\n"
        if sources.without_streams
        else ""
    )
    announce_ready(
        f"Shortlink local stack ready\n"
        f"  API:       {base}{'' if front == 'http-api' else f' (through a load balancer: FRONT={front})'}\n"
        f"{f'  Load balancer front: http://{HOST}:{balancer_port}{chr(10)}' if balancer_port else ''}"
        f"  API key:   {api_key}\n"
        f"{console_line}"
        f"{passkeys_line(pool, port)}"
        f"{endpoint_lines(endpoints, embedded)}"
        f"{cognito_line(cognito_endpoint, endpoints)}"
        f"{sso_line}"
        f"{lake_line}"
        f"{ttl_line}"
        f"{streams_line}"
        f"  Routes:    {', '.join(f'{m} {r.path}' for r in template.api().routes for m in r.methods)}\n"
        f"Try:\n"
        f"  curl -s -X POST {base}/links -H 'Authorization: Bearer {api_key}' \\\n"
        f"       -H 'Content-Type: application/json' -d '{{\"url\": \"https://example.com\"}}'\n",
        running,
    )
    http_server.serve_forever()


def stop_on_signals() -> None:
    """Ctrl-C, SIGINT and SIGTERM stop the stack, once: a second signal while it stops is
    ignored. SIGINT is set explicitly since a shell starts background jobs with it ignored."""

    def request_stop(signum: int, frame: object) -> None:
        for stop_signal in STOP_SIGNALS:
            signal.signal(stop_signal, signal.SIG_IGN)
        raise StopRequested

    for stop_signal in STOP_SIGNALS:
        signal.signal(stop_signal, request_stop)


def main() -> None:
    log_to_stdout()
    os.environ.setdefault("AWS_DEFAULT_REGION", REGION)
    os.environ.setdefault("AWS_REGION", os.environ["AWS_DEFAULT_REGION"])
    if missing := choose_local_credentials():
        print(f"error: {missing}", file=sys.stderr)
        sys.exit(2)
    stop_on_signals()
    try:
        with ExitStack() as running:
            port, moto_port = int(os.environ.get("PORT", "3000")), int(os.environ.get("MOTO_PORT", "5005"))
            regions = RegionsSetting.from_environment()
            if regions is None:
                serve(port, moto_port, running)
            else:
                from tools.developers.devstack.regions import serve_regions

                serve_regions(regions, port, moto_port, running)
    except StopRequested:
        print("Stopped.", flush=True)
    except PortTaken as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
