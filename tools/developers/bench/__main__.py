"""`make bench`: one JSON object with the redirect's latency, AWS calls and cold start, measured
in this run against the same floors and naive handler, plus create and ingest costs, and what
counting clicks and reading their stats cost in DynamoDB units and bytes (click_costs.py).

Everything runs in-process against an embedded moto server on loopback; nothing here is a test
and nothing asserts a timing. Results go to stdout and bench-results/latest.json, and from there
to docs/performance.md (report.py). `python -m tools.developers.bench clicks` runs the click part alone
(bench-results/clicks.json), `python -m tools.developers.bench redirects` all but it (latest.json, the page's
click tables then from clicks.json); `python -m tools.developers.bench report` writes the page again.
`python -m tools.developers.bench bots` measures the bot classifier alone (bots.py: bench-results/bots.json
and the table of docs/analytics.md), as every full run does too; `python -m tools.developers.bench edge`
the edge function under Node (edge_function.py: bench-results/edge.json and the table of docs/edge.md).
"""

import json
import logging
import os
import platform
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

from tools.developers.bench.bots import bots_table, measure_bots, write_analytics_table
from tools.developers.bench.click_costs import measure_click_costs
from tools.developers.bench.cold_starts import measure_cold_starts
from tools.developers.bench.console_pages import measure_console_pages
from tools.developers.bench.devices import devices_table, measure_devices, write_devices_table
from tools.developers.bench.edge_function import edge_function_table, measure_edge_function, write_edge_table
from tools.developers.bench.harness import REGION, Stack, create_links, progress, start_endpoint, start_stack
from tools.developers.bench.ingest import measure_ingest
from tools.developers.bench.packing import measure_packing
from tools.developers.bench.redirects import CALL_COUNT_SAMPLE, MISS_CALLS, measure_redirects
from tools.developers.bench.report import click_targets, targets, write_performance_page, write_report

ROOT = Path(__file__).resolve().parents[3]
CREATES = 200


def stream_aggregator(stack: Stack) -> Callable[[], int]:
    """Runs AccountStatsFunction over the click-stats stream's new records, as the local stack
    does; the number of batches it took."""
    from tools.developers.devstack.resources import stream_arns
    from tools.developers.devstack.stream_trigger import StreamPoller

    trigger = stack.template.stream_trigger("AccountStatsFunction")
    arn = stream_arns(stack.template, boto3.client("dynamodb"))[trigger.table_id]
    poller = StreamPoller(trigger, arn, boto3.client("dynamodbstreams"), stack.runner, REGION)

    def drain() -> int:
        batches = 0
        while poller.poll_once():
            batches += 1
        return batches

    return drain


def measure_clicks(stack: Stack, code: str, measured: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    return measure_click_costs(
        lambda event: stack.runner.call("IngestFunction", event),
        stream_aggregator(stack),
        lambda event: stack.runner.call("ManageFunction", event),
        code,
        os.environ["BENCH_API_KEY"],
        progress,
        measured,
    )


def keep_partial(report: dict[str, Any], name: str) -> Callable[[dict[str, Any]], None]:
    """Writes bench-results/partial-<name> with the click part as far as it is measured."""

    def write(part: dict[str, Any]) -> None:
        results = ROOT / "bench-results"
        results.mkdir(exist_ok=True)
        (results / f"partial-{name}").write_text(json.dumps({**report, "clicks": part}, indent=2) + "\n")

    return write


def bots_part() -> dict[str, Any]:
    """The bot classifier beside each library alone, and ua-parser's devices beside the rules' patterns;
    their tables written into docs/analytics.md."""
    progress("classifying the User-Agent corpora with our classifier and each library alone")
    bots = measure_bots()
    progress(f"wrote {write_analytics_table(bots).relative_to(ROOT)}:\n{bots_table(bots)}")
    progress("reading devices, browsers and OS of the people's corpora with ua-parser and the rules' patterns")
    bots["devices"] = measure_devices()
    progress(f"wrote {write_devices_table(bots['devices']).relative_to(ROOT)}:\n{devices_table(bots['devices'])}")
    return bots


def edge_part() -> dict[str, Any]:
    """The edge function's real code under Node; its table written into docs/edge.md."""
    progress("running edge/viewer-request.js under Node over a hit, a miss and the largest entry")
    edge = measure_edge_function()
    progress(f"wrote {write_edge_table(edge).relative_to(ROOT)}:\n{edge_function_table(edge)}")
    return edge


def main() -> None:
    if sys.argv[1:] == ["report"]:  # the page again from bench-results/: `python -m tools.developers.bench report`
        print(f"wrote {write_performance_page().relative_to(ROOT)}")
        return
    if sys.argv[1:] == ["bots"]:  # no stack needed: `python -m tools.developers.bench bots`
        write_report({"bots": bots_part()}, sys.stdout, "bots.json")
        return
    if sys.argv[1:] == ["edge"]:  # no stack needed: `python -m tools.developers.bench edge`
        write_report({"edge_function": edge_part()}, sys.stdout, "edge.json")
        return
    # EMF metrics and logs go to stdout as in Lambda; here to /dev/null for the whole run
    # (Powertools' Logger keeps the stream it saw at import), and the report to the real stdout.
    report_stream = sys.stdout
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - open until the process ends
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    progress("starting the embedded endpoint and the template's resources")
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    endpoint = start_endpoint()
    try:
        stack = start_stack()
        machine = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
        if sys.argv[1:] == ["console"]:  # the console's links list alone: `python -m tools.developers.bench console`
            write_report(
                {"machine": machine, "console_pages": measure_console_pages(stack)}, report_stream, "console.json"
            )
            return
        if sys.argv[1:] == ["clicks"]:  # the click part alone: `python -m tools.developers.bench clicks`
            report: dict[str, Any] = {"machine": machine}
            report["clicks"] = measure_clicks(
                stack, create_links(stack, 1, "k")[0][0], keep_partial(report, "clicks.json")
            )
            report["targets"] = click_targets(report["clicks"])
            stack.runner.stop()
            write_report(report, report_stream, "clicks.json")
            if (ROOT / "bench-results" / "latest.json").is_file():
                write_performance_page()
            progress("done")
            return
        progress(f"creating {CREATES} + {MISS_CALLS + CALL_COUNT_SAMPLE} links")
        codes, create_calls, create_durations = create_links(stack, CREATES, "c")
        miss_codes, _, _ = create_links(stack, MISS_CALLS + CALL_COUNT_SAMPLE, "m")
        report = {
            "machine": machine,
            "create": {
                "links": CREATES,
                "p50_ms": round(statistics.median(create_durations) / 1e6, 2),
                "aws_calls_per_link": round(len(create_calls.calls) / CREATES, 3),
                "calls": {f"{service}.{operation}": n for (service, operation), n in create_calls.counts().items()},
            },
            "redirect": measure_redirects(stack, codes[0], miss_codes),
            "packing": measure_packing(stack, codes[0]),
            "cold_start": measure_cold_starts(codes[0]),
            "ingest": measure_ingest(stack, codes),
        }
        if sys.argv[1:] != ["redirects"]:
            report["clicks"] = measure_clicks(stack, codes[1], keep_partial(report, "latest.json"))
            report["bots"] = bots_part()
            report["edge_function"] = edge_part()
        report["targets"] = {**targets(report), **report.get("bots", {}).get("targets", {})}
        stack.runner.stop()
    finally:
        endpoint.terminate()  # also when a measurement fails: no moto server left behind
    write_report(report, report_stream, "latest.json")
    if "clicks" in report or (ROOT / "bench-results" / "clicks.json").is_file():
        progress(f"wrote {write_performance_page().relative_to(ROOT)}")
    else:  # a first `redirects` run: the page's click tables are not measured yet
        progress(
            "the page waits for its click tables: `python -m tools.developers.bench clicks` measures them and writes it"
        )
    progress("done")


if __name__ == "__main__":
    main()
