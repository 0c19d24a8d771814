"""`REGIONS=us-east-1,eu-central-1,ap-southeast-1 make dev`: the stack in several regions on this
machine, as a deployment to several regions runs it.

One embedded moto server keeps the regions apart (each region's clients sign for their region).
Each region's tables and queues are created from the template with that region's clients, its
functions run in a process of their own (`python -m tools.developers.devstack` for one region) on PORT,
PORT+1, ... with AWS_REGION, SHORTLINK_REGIONS and SHORTLINK_HOME_REGION set, and the replicator
(tools.developers.devstack.replicator) stands in for DynamoDB global tables. A control endpoint on
CONTROL_PORT stops and starts a region (tools.developers.devstack.region_control), and an edge front on
EDGE_FRONT_PORT fails over from the first region to the second per request, as the distribution's
origin group does (tools.developers.devstack.origin_group).

Environment: REGIONS (two or more; the first is the home region unless HOME_REGION names
another), REPLICATION_LAG_MS (500), CONTROL_PORT (PORT + the number of regions), EDGE_FRONT_PORT
(CONTROL_PORT + 1).
"""

import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.developers.devstack.region_outage import RegionFront, UnreachableTables, free_local_port
from tools.developers.devstack.serving import HOST, READY_LINE, announce_ready, ensure_free, start_embedded_moto
from tools.operators.aws_target import LOCAL_SERVICES, given_endpoint

ROOT = Path(__file__).resolve().parents[3]
REGION_PATTERN = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]")
MAX_REGIONS = 5
DEFAULT_LAG_MS = 500
START_SECONDS = 180  # a region's functions import on a busy machine
# Tables that stay regional in a template without global tables: Powertools' idempotency records.
REGIONAL_TABLES = {"IdempotencyTable"}
# What the stack's own variables (read by this process) must not pass on to a region's.
STACK_VARIABLES = (
    "REGIONS",
    "HOME_REGION",
    "REPLICATION_LAG_MS",
    "CONTROL_PORT",
    "EDGE_FRONT_PORT",
    "PORT",
    "MOTO_PORT",
)

logger = logging.getLogger("devstack")


@dataclass(frozen=True)
class RegionsSetting:
    regions: tuple[str, ...]
    home: str
    lag_ms: int

    @classmethod
    def from_environment(cls) -> "RegionsSetting | None":
        """REGIONS, HOME_REGION and REPLICATION_LAG_MS; None for one region (REGIONS unset, or
        one region: the single-region stack in it)."""
        text = os.environ.get("REGIONS", "").strip()
        regions = tuple(region.strip() for region in text.split(",") if region.strip())
        for region in regions:
            if not REGION_PATTERN.fullmatch(region):
                raise SystemExit(f"REGIONS: {region!r} is not a region name (like eu-central-1)")
        if len(set(regions)) != len(regions):
            raise SystemExit(f"REGIONS names a region twice: {text}")
        if len(regions) > MAX_REGIONS:
            raise SystemExit(f"REGIONS: at most {MAX_REGIONS} regions, not {len(regions)}")
        if len(regions) == 1:
            os.environ["AWS_DEFAULT_REGION"] = os.environ["AWS_REGION"] = regions[0]
        if len(regions) <= 1:
            return None
        home = os.environ.get("HOME_REGION", "").strip() or regions[0]
        if home not in regions:
            raise SystemExit(f"HOME_REGION {home!r} is not one of REGIONS ({', '.join(regions)})")
        lag_text = os.environ.get("REPLICATION_LAG_MS", "").strip() or str(DEFAULT_LAG_MS)
        if not lag_text.isdigit():
            raise SystemExit(f"REPLICATION_LAG_MS must be a whole number of milliseconds, not {lag_text!r}")
        return cls(regions, home, int(lag_text))


def die_with_parent() -> None:
    """A region's process ends with the stack's, even when that one is killed (Linux)."""
    if sys.platform == "linux":
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


class RegionProcess:
    """One region's functions: `python -m tools.developers.devstack` in that region on a port of its
    own behind the region's `port` (tools.developers.devstack.region_outage), its output passed on
    prefixed with the region once it is ready (its banner is the stack's to print)."""

    def __init__(self, region: str, port: int, environment: dict[str, str], tables: UnreachableTables) -> None:
        self.region = region
        self.port = port
        self.running = True
        self._tables = tables
        self._front = RegionFront(port, int(environment["PORT"]))
        self._front.open()
        self._lines: list[str] = []
        self._ready = threading.Event()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tools.developers.devstack"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=die_with_parent,
        )
        threading.Thread(target=self._pass_on, name=f"output-{region}", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def _pass_on(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if self._ready.is_set():
                print(f"[{self.region}] {line}", end="", flush=True)
            else:
                self._lines.append(line)
                if READY_LINE in line:
                    self._ready.set()

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"region {self.region} did not start:\n{''.join(self._lines)}")

    def pause(self) -> None:
        """Stop the region's functions where they are (nothing polls) and put the region out of
        reach: its port refuses connections, its tables every request."""
        self._front.close()
        self._tables.stopped.add(self.region)
        self.process.send_signal(signal.SIGSTOP)
        self.running = False

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)
        self._tables.stopped.discard(self.region)
        self._front.open()
        self.running = True

    def ask_to_stop(self) -> None:
        self._front.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()

    def wait_stopped(self) -> None:
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def stop_all(processes: list[RegionProcess]) -> None:
    """Every region stops at once (each takes seconds)."""
    for process in processes:
        process.ask_to_stop()
    for process in processes:
        process.wait_stopped()


def replicated_tables(template: Any) -> list[str]:
    """The tables DynamoDB replicates: the template's global tables; in a template without any,
    every table but the regional ones."""
    from tools.developers.devstack.resources import tables_of
    from tools.developers.devstack.template import GLOBAL_TABLE_TYPE

    global_tables = template.resources(GLOBAL_TABLE_TYPE)
    if global_tables:
        return sorted(global_tables)
    return sorted(name for name in tables_of(template) if name not in REGIONAL_TABLES)


def region_environment(
    setting: RegionsSetting, region: str, port: int, api_key: str, pool: dict[str, str]
) -> dict[str, str]:
    """A region's process's environment: this one's, told its region, the key and the one user pool."""
    environment = {name: value for name, value in os.environ.items() if name not in STACK_VARIABLES}
    environment.update(
        {
            "PORT": str(port),
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "SHORTLINK_REGIONS": ",".join(setting.regions),
            "SHORTLINK_HOME_REGION": setting.home,
            "SHORTLINK_API_KEY": api_key,
            **pool,
        }
    )
    return environment


def serve_regions(setting: RegionsSetting, port: int, moto_port: int, running: ExitStack) -> None:
    """Start every region, the replicator and the control endpoint, each registered on `running`."""
    import boto3

    from tools.developers.devstack.local_env import function_environment
    from tools.developers.devstack.origin_group import OriginGroup, own_behaviour_paths, serve_origin_group
    from tools.developers.devstack.people import (
        COGNITO_ENDPOINT_VARIABLE,
        DEV_OWNER_EMAIL,
        check_totp_codes,
        create_user_pool,
        ensure_first_owner,
        first_owner_line,
        workspace_of,
    )
    from tools.developers.devstack.region_control import RegionControl, serve_control
    from tools.developers.devstack.replicator import RegionClients, Replicator
    from tools.developers.devstack.resources import create_queues, create_tables
    from tools.developers.devstack.template import LocalTemplate

    ports = [port + index for index in range(len(setting.regions))]
    control_port = int(os.environ.get("CONTROL_PORT") or port + len(setting.regions))
    for region_port in ports:
        ensure_free(region_port, "each region takes a port from PORT on: set PORT=<free port>")
    ensure_free(control_port, "set CONTROL_PORT=<free port>")
    front_port = int(os.environ.get("EDGE_FRONT_PORT") or control_port + 1)
    ensure_free(front_port, "set EDGE_FRONT_PORT=<free port>")

    embedded = {service for service in LOCAL_SERVICES if given_endpoint(service) is None}
    # The user pool is the shared moto's too, unless the environment names a Cognito endpoint:
    # each region's process is told it, so none starts a moto of its own on MOTO_PORT.
    cognito_endpoint = os.environ.get(COGNITO_ENDPOINT_VARIABLE) or os.environ.get("AWS_ENDPOINT_URL")
    started = embedded or cognito_endpoint is None
    if started:
        check_totp_codes()
    # Tables of a stopped region out of reach (on the embedded moto only: another endpoint is yours).
    unreachable = UnreachableTables()
    moto_url = start_embedded_moto(moto_port, running, whole_streams=True, gate=unreachable.around) if started else ""
    endpoints = {service: given_endpoint(service) or moto_url for service in LOCAL_SERVICES}
    for service, endpoint in endpoints.items():
        os.environ[LOCAL_SERVICES[service]] = endpoint
    os.environ[COGNITO_ENDPOINT_VARIABLE] = cognito_endpoint or moto_url

    template = LocalTemplate.load(ROOT / "template.yaml")
    tables = replicated_tables(template)
    clients, queue_urls = {}, {}
    for region in setting.regions:
        dynamodb: Any = boto3.client("dynamodb", region_name=region, endpoint_url=endpoints["dynamodb"])
        create_tables(template, dynamodb, with_streams=frozenset(tables))
        queue_urls[region] = create_queues(
            template, boto3.client("sqs", region_name=region, endpoint_url=endpoints["sqs"])
        )
        streams = boto3.client("dynamodbstreams", region_name=region, endpoint_url=endpoints["dynamodb"])
        clients[region] = RegionClients(dynamodb, streams)
        described = [dynamodb.describe_table(TableName=name)["Table"] for name in tables]
        without = [table["TableName"] for table in described if not table.get("LatestStreamArn")]
        if without:
            raise SystemExit(f"REGIONS needs a DynamoDB with streams to replicate; {', '.join(without)} has none")

    # One user pool for every region, as deployed: a person signs in wherever they are routed.
    cognito: Any = boto3.client(
        "cognito-idp", region_name=setting.home, endpoint_url=os.environ[COGNITO_ENDPOINT_VARIABLE]
    )
    pool = create_user_pool(template, cognito, os.environ[COGNITO_ENDPOINT_VARIABLE])
    api_key = os.environ.get("SHORTLINK_API_KEY") or new_api_key()
    processes: list[RegionProcess] = []
    running.callback(stop_all, processes)
    for region, region_port in zip(setting.regions, ports, strict=True):
        environment = region_environment(setting, region, free_local_port(), api_key, pool.shared())
        processes.append(RegionProcess(region, region_port, environment, unreachable))
    for process in processes:
        process.wait_ready(START_SECONDS)
    # Its first owner, once, at home (each region's process stored the key in its own table).
    keys_table = function_environment(template, queue_urls[setting.home])["API_KEYS_TABLE"]
    owner_email = os.environ.get("SHORTLINK_OWNER_EMAIL") or DEV_OWNER_EMAIL
    workspace_id = workspace_of(keys_table, api_key, setting.home)
    password = ensure_first_owner(pool, cognito, keys_table, workspace_id, owner_email, setting.home)
    home_url = next(process.url for process in processes if process.region == setting.home)

    replicator = Replicator(clients, tables, setting.lag_ms / 1000)
    replicator.start()
    running.callback(replicator.join, timeout=5)
    running.callback(replicator.stopping.set)
    control = RegionControl({p.region: p for p in processes}, replicator, setting.home, setting.lag_ms)
    serve_control(control, control_port, running)
    serve_origin_group(OriginGroup(ports[0], ports[1], own_behaviour_paths()), front_port, running)

    width = max(len(region) for region in setting.regions) + len(" (home)") + 1
    region_lines = "".join(
        f"  {(process.region + (' (home)' if process.region == setting.home else '') + ':'):<{width}} {process.url}\n"
        for process in processes
    )
    announce_ready(
        f"Shortlink local stack ready in {len(processes)} regions\n"
        f"{region_lines}"
        f"  API key:   {api_key}\n"
        f"{first_owner_line(f'{home_url}/console/sign-in (any region)', owner_email, password)}"
        f"  Replication: {', '.join(tables)}; lag {setting.lag_ms} ms, last writer wins\n"
        f"  Control:   http://{HOST}:{control_port} (GET /regions, POST /regions/<region>/stop and /start)\n"
        f"  Edge:      http://{HOST}:{front_port} (an origin group: {setting.regions[0]}, failing over to"
        f" {setting.regions[1]})\n"
        f"  DynamoDB endpoint: {endpoints['dynamodb']}{' (embedded moto)' if 'dynamodb' in embedded else ''}\n"
        f"  SQS endpoint:      {endpoints['sqs']}{' (embedded moto)' if 'sqs' in embedded else ''}\n",
        running,
    )
    while True:
        for process in processes:
            if process.running and process.process.poll() is not None:
                status = process.process.returncode
                raise SystemExit(f"region {process.region} stopped by itself (exit status {status})")
        time.sleep(0.5)


def new_api_key() -> str:
    from tools.developers.devstack.lambda_runtime import load_layer

    load_layer(ROOT / "layers" / "common")
    from shortlink.access.api_keys import generate_api_key

    return generate_api_key()
