"""`make sam-local`: the template under `sam local start-api`, natively, all on this machine.

    python -m tools.developers.samlocal            # create → follow → stats through SAM, then stop (make sam-local)
    python -m tools.developers.samlocal --serve    # the same stack, kept running for your own requests

Steps: the Lambda base image (a local stand-in when none can be pulled), a Docker network of
its own, moto on that network's gateway (the only address the containers call), the template's
tables and queues there, `sam build` for this host's architecture, `sam local start-lambda` and
`sam local start-api`, and every trigger (the clicks queue's to ingest, the webhook deliveries',
the click-stats table's stream to the account stats' aggregator) delivering batches through
start-lambda, as `make dev` does. Environment: SAM_LOCAL_API_PORT (3001; make dev has 3000), SAM_LOCAL_LAMBDA_PORT
(3002), SAM_LOCAL_MOTO_PORT (5006).
"""

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from tools.developers.devstack.__main__ import REGION, ensure_api_key
from tools.developers.devstack.event_sources import EventSources, event_sources
from tools.developers.devstack.local_env import function_environment
from tools.developers.devstack.resources import create_queues, create_tables
from tools.developers.devstack.serving import READY_LINE, ensure_free, log_to_stdout
from tools.developers.devstack.sqs_trigger import SqsPoller
from tools.developers.devstack.stream_trigger import StreamPoller
from tools.developers.devstack.template import LocalTemplate
from tools.developers.samlocal import flow
from tools.developers.samlocal.commands import (
    SamLocal,
    env_vars,
    native_architecture,
    offline_environment,
    runtime_python,
    sam_environment,
)
from tools.developers.samlocal.docker_network import docker_available, ensure_network, remove_function_containers
from tools.developers.samlocal.image import ensure_base_image
from tools.developers.samlocal.processes import SamProcess, run_logged
from tools.developers.samlocal.start_lambda import StartLambdaCaller

ROOT = Path(__file__).resolve().parents[3]

NETWORK = "shortlink-sam-local"
CACHE_DIR = Path.home() / ".cache" / "shortlink" / "sam-local"
SERVE_POLL_SECONDS = 1.0


def use_local_aws(endpoint: str) -> None:
    """This process's own calls (tables, queues, the API key, the trigger) go to the local endpoint only."""
    offline = offline_environment(os.environ, REGION)
    for name in set(os.environ) - set(offline):
        del os.environ[name]
    os.environ.update(offline, AWS_ENDPOINT_URL=endpoint)


def stop_on_sigterm() -> None:
    """SIGTERM (kill, a process manager) stops as cleanly as Ctrl-C: SAM, its containers, moto."""

    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def start_lambda_sources(template: LocalTemplate, queue_urls: dict[str, str], lambda_url: str) -> EventSources:
    """Every trigger's poller, each invoking its function through start-lambda (within the
    function's timeout and a cold start)."""
    import boto3

    def caller_of(function_name: str) -> StartLambdaCaller:
        function_timeout = int(template.functions[function_name].timeout or 30)
        return StartLambdaCaller(lambda_url, timeout_seconds=function_timeout + 60)

    clients = (boto3.client("sqs"), boto3.client("dynamodb"), boto3.client("dynamodbstreams"))
    return event_sources(template, queue_urls, clients, caller_of, REGION)


def run(serve: bool) -> None:
    import boto3
    from moto.server import ThreadedMotoServer

    from tools.developers.moto_transactions import allow_long_expressions

    local = SamLocal(
        architecture=native_architecture(),
        build_dir=ROOT / ".aws-sam" / "sam-local",
        network=NETWORK,
        api_port=int(os.environ.get("SAM_LOCAL_API_PORT", "3001")),
        lambda_port=int(os.environ.get("SAM_LOCAL_LAMBDA_PORT", "3002")),
    )
    moto_port = int(os.environ.get("SAM_LOCAL_MOTO_PORT", "5006"))
    layer_python = runtime_python(os.environ.get("LAYER_PYTHON"), ROOT)  # before anything starts
    ensure_free(local.api_port, "stop what runs there or set SAM_LOCAL_API_PORT=<free port>")
    ensure_free(local.lambda_port, "stop what runs there or set SAM_LOCAL_LAMBDA_PORT=<free port>")
    print(f"Architecture {local.architecture} (this host's: no emulation)", flush=True)
    print(f"Base image {ensure_base_image(local.architecture, CACHE_DIR)}", flush=True)
    gateway = ensure_network(local.network)
    endpoint = f"http://{gateway}:{moto_port}"
    allow_long_expressions()  # an account's day adds ~170 counters in one expression
    moto = ThreadedMotoServer(ip_address=gateway, port=moto_port, verbose=False)
    moto.start()
    processes: list[SamProcess] = []
    pollers: list[SqsPoller | StreamPoller] = []
    try:
        use_local_aws(endpoint)
        template = LocalTemplate.load(ROOT / "template.yaml")
        sqs: Any = boto3.client("sqs")
        create_tables(template, boto3.client("dynamodb"))
        queue_urls = create_queues(template, sqs)
        environment = function_environment(template, queue_urls)
        api_key = ensure_api_key(environment["API_KEYS_TABLE"], os.environ.get("SHORTLINK_API_KEY"))
        clicks_senders = [
            name
            for name, function in template.functions.items()
            if "CLICKS_QUEUE_URL" in (function.environment or {}).get("Variables", {})
        ]
        local.build_dir.mkdir(parents=True, exist_ok=True)
        local.env_vars_file.write_text(
            json.dumps(env_vars(endpoint, environment["CLICKS_QUEUE_URL"], local.api_url, clicks_senders), indent=2)
        )
        print(f"DynamoDB/SQS endpoint {endpoint} (moto, on docker network {local.network})", flush=True)

        sam_env = sam_environment(os.environ, local.architecture, REGION, layer_python)
        print("sam build ...", flush=True)
        run_logged(local.build(), local.build_dir / "build.log", sam_env, ROOT)
        for command, port, name in (
            (local.start_lambda(), local.lambda_port, "start-lambda"),
            (local.start_api(), local.api_port, "start-api"),
        ):
            processes.append(SamProcess(command, port, local.build_dir / f"{name}.log", sam_env, ROOT))
        for process in processes:
            process.wait_until_listening(local.host)

        pollers = start_lambda_sources(template, queue_urls, local.lambda_url).pollers  # moto has streams
        for poller in pollers:
            poller.start()

        print(
            f"sam local ready\n  API:     {local.api_url}\n  API key: {api_key}\n"
            f"  Ran:     {' '.join(local.start_api())}\n           {' '.join(local.start_lambda())}\n"
            f"  Logs:    {local.build_dir}/start-api.log, start-lambda.log",
            flush=True,
        )
        if serve:
            print(READY_LINE, flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:  # until Ctrl-C, or a sam process that stops on its own (said at once)
                    for process in processes:
                        process.check_running()
                    time.sleep(SERVE_POLL_SECONDS)
        else:
            totals = flow.run(local.api_url, api_key)
            print(f"sam local: create → follow → stats works ({totals})", flush=True)
    finally:
        for poller in pollers:
            poller.stopping.set()
        for poller in pollers:
            poller.join(timeout=10)
        for process in reversed(processes):
            process.stop()
        remove_function_containers(local.network)
        moto.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.developers.samlocal", description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help="keep the stack running instead of checking the flow")
    args = parser.parse_args(argv)
    log_to_stdout()
    problem = docker_available()
    if problem:
        print(f"sam local needs Docker: {problem}", file=sys.stderr)
        return 2
    stop_on_sigterm()
    try:
        run(args.serve)
    except KeyboardInterrupt:
        return 130
    except SystemExit as failure:
        if failure.code not in (None, 0):
            # The details (a log's end) first, then one line that says what failed: the last line.
            summary, _, details = str(failure.code).partition("\n")
            if details:
                print(details, file=sys.stderr)
            print(f"error: {summary}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
