"""`make cost`: what a million redirects and a million creates cost at list prices.

Every line is priced from three sources, shown as it is computed:
- the template: memory, architecture and logging settings of each function, access logging;
- `make bench` (bench-results/latest.json): AWS calls per request, handler and extension
  durations, clicks and bytes per queue message under sustained and idle traffic (the click
  extension packs clicks while busy), clicks per ingest batch, DynamoDB writes per click;
- PRICES below: AWS list prices for us-east-1 (on-demand, no free tier). Each table is priced
  at the first volume tier, and its total is also given beyond 300 million API requests a month,
  where HTTP API requests cost $0.90 a million instead of $1.00 (no other price here has a tier
  before 100 billion requests).

A deployment of several regions (docs/regions.md) pays each write again in every other region (a
replicated write unit there, and the bytes sent); `make cost` prints the prices per million for
one region and for three (REGION_COUNTS).

Durations come from this machine against a local endpoint, so the Lambda duration lines are an
estimate; they are also the smallest lines. Everything else is a count. The tables and the
figures its text quotes are written to docs/cost.md (template: tools/bench/pages/cost.md.j2).
"""

import io
import json
import math
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.bench.pages import pages

ROOT = Path(__file__).resolve().parents[1]

if TYPE_CHECKING:
    from tools.devstack.template import LocalTemplate

BENCH_RESULTS = ROOT / "bench-results" / "latest.json"
PAGE = ROOT / "docs" / "cost.md"
TARGET_PER_MILLION_REDIRECTS = 1.40

# USD, us-east-1, list prices.
PRICES = {
    "http_api_request": 1.00 / 1e6,  # HTTP API, first 300 million a month
    "http_api_request_over_300m": 0.90 / 1e6,  # HTTP API, beyond 300 million a month
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm64": 0.0000133334,
    "lambda_gb_second_x86_64": 0.0000166667,
    "sqs_request": 0.40 / 1e6,  # standard queue, per 64 KB request
    "dynamodb_read_unit": 0.125 / 1e6,  # on-demand
    "dynamodb_write_unit": 0.625 / 1e6,  # on-demand
    "logs_ingested_gb": 0.50,  # CloudWatch Logs, standard class
    "logs_ingested_gb_infrequent_access": 0.25,  # CloudWatch Logs, Infrequent Access class
    # A global table's write applied in another region: a replicated write unit there (on-demand,
    # the price of a write unit), and the bytes sent between the regions.
    "dynamodb_replicated_write_unit": 0.625 / 1e6,
    "inter_region_transfer_gb": 0.02,
}
# Lambda's own "start" and "report" lines per invocation at SystemLogLevel INFO (JSON format).
PLATFORM_LOG_BYTES = 700
API_REQUEST_ITEM = "API Gateway HTTP API request"
ACCESS_LOG_ITEM = "CloudWatch Logs (API access log line)"
# The event source reads and deletes SQS messages 10 per request; SQS bills a request per 64 KB.
MESSAGES_PER_SQS_REQUEST = 10
SQS_BILLING_CHUNK = 64 * 1024
# A write unit covers up to 1 KB of item: the most a replicated write sends to another region.
REPLICATED_BYTES_PER_WRITE_UNIT = 1024
# The deployments `make cost` compares: one region, and the docs' three (docs/regions.md).
REGION_COUNTS = (1, 3)
TRAFFIC = {
    "sustained": "sustained load (clicks packed)",
    "idle": "idle traffic (each click sent at once)",
}


@dataclass(frozen=True)
class Line:
    item: str
    quantity: float  # per request of the kind priced
    unit: str
    unit_price: float

    @property
    def cost_per_million(self) -> float:
        return self.quantity * self.unit_price * 1e6


@dataclass(frozen=True)
class FunctionSpec:
    memory_gb: float
    architecture: str
    platform_logs: bool  # Lambda's start/report lines reach CloudWatch Logs

    def gb_second_price(self) -> float:
        return PRICES[f"lambda_gb_second_{self.architecture}"]


@cache
def template() -> "LocalTemplate":
    """template.yaml as SAM CLI reads it (tools.devstack.template): Globals merged, defaults applied."""
    from tools.devstack.template import LocalTemplate

    return LocalTemplate.load(ROOT / "template.yaml")


def function_specs() -> dict[str, FunctionSpec]:
    """Each function as deployed with the template's defaults (SAM CLI resolves Globals and
    parameters such as Architecture)."""
    functions = template().functions
    return {
        name: FunctionSpec(
            memory_gb=(function.memory or 128) / 1024,
            architecture=(function.architectures or ["x86_64"])[0],
            platform_logs=(function.logging_config or {}).get("SystemLogLevel", "INFO") != "WARN",
        )
        for name, function in functions.items()
    }


def create_rate_limited() -> bool:
    return int(template().parameter_default("CreateRateLimitPerMinute")) > 0


def access_log_price_per_gb() -> float:
    """What a GB of access log costs in the log group class the template gives it."""
    group = template().properties("ApiAccessLogs")
    if group.get("LogGroupClass") == "INFREQUENT_ACCESS":
        return PRICES["logs_ingested_gb_infrequent_access"]
    return PRICES["logs_ingested_gb"]


def access_log_bytes() -> int:
    """One access log line as the template formats it, with typical values."""
    settings = template().properties("ShortlinkApi").get("AccessLogSettings")
    if isinstance(settings, dict) and "Fn::If" in settings:  # the AccessLogs parameter decides
        condition, enabled, _ = settings["Fn::If"]
        assert condition == "HasAccessLogs", condition
        settings = enabled if template().parameter_default("AccessLogs") == "Enabled" else None
    if not settings:
        return 0
    sample = {
        "$context.requestId": "JkD2ZgXqIAMEVJQ=",
        "$context.identity.sourceIp": "203.0.113.45",
        "$context.requestTime": "30/Nov/2026:01:02:03 +0000",
        "$context.requestTimeEpoch": "1796000523",
        "$context.httpMethod": "GET",
        "$context.path": "/Ab3dE9x",
        "$context.routeKey": "GET /{code}",
        "$context.status": "302",
        "$context.responseLatency": "12",
        "$context.integrationErrorMessage": "-",
    }
    line = str(settings["Format"])
    for variable, value in sample.items():
        line = line.replace(variable, value)
    return len(line.encode()) + 60  # CloudWatch Logs adds a timestamp and framing per event


def redirect_metrics_bytes() -> int:
    """The EMF record of the redirect's metrics that ingest emits per batch, measured by emitting
    one (a redirect's own click carries its counts there; see shortlink.clicks)."""
    from shortlink.clicks import metrics as deferred_metrics

    # The redirect's own service name and namespace, as the template sets them.
    redirect_environment = {
        name: str(value)
        for name, value in (template().functions["RedirectFunction"].environment or {})["Variables"].items()
        if name.startswith("POWERTOOLS_")
    }

    captured = io.StringIO()
    with redirect_stdout(captured):
        deferred_metrics.emit({"CacheHits": 950, "CacheMisses": 50}, redirect_environment)
    return len(captured.getvalue().encode())


# Ingest's own records per batch: its EMF record (ClicksIngested, DuplicatesSkipped) and its
# "batch counted" log line, each about 500 bytes with Powertools' fields.
INGEST_LOG_BYTES_PER_BATCH = 1000


def billed_ms(duration_ms: float) -> int:
    return max(1, math.ceil(duration_ms))


def lambda_lines(name: str, spec: FunctionSpec, billed: float, per_request: float) -> list[Line]:
    """Requests and GB-seconds of `per_request` invocations of `name`, each billed `billed` ms
    (whole milliseconds per invocation; a mean over invocations may have a fraction)."""
    gb_seconds = spec.memory_gb * billed / 1000
    return [
        Line(f"Lambda requests ({name})", per_request, "invocations", PRICES["lambda_request"]),
        Line(
            f"Lambda duration ({name}, {spec.memory_gb * 1024:.0f} MB {spec.architecture}, {billed:g} ms billed)",
            per_request * gb_seconds,
            "GB-s",
            spec.gb_second_price(),
        ),
    ]


def log_line(item: str, bytes_per_request: float, price_per_gb: float = PRICES["logs_ingested_gb"]) -> Line:
    return Line(item, bytes_per_request / 1e9, "GB", price_per_gb)


def replication_lines(lines: list[Line], regions: int) -> list[Line]:
    """What the writes among `lines` cost again in a deployment of `regions` regions: every table
    is a global table, so each write is applied in each other region (a replicated write unit
    there) and sent to it (at most a KB per write unit)."""
    others = regions - 1
    written = sum(line.quantity for line in lines if line.unit == "write units")
    if others < 1 or not written:
        return []
    return [
        Line(
            f"DynamoDB replicated writes (each write unit in {others} other regions)",
            written * others,
            "replicated write units",
            PRICES["dynamodb_replicated_write_unit"],
        ),
        Line(
            f"Data transfer between regions (replication, ≤ 1 KB per write unit, to {others} regions)",
            written * others * REPLICATED_BYTES_PER_WRITE_UNIT / 1e9,
            "GB",
            PRICES["inter_region_transfer_gb"],
        ),
    ]


def click_analytics_lines(bench: dict[str, Any], specs: dict[str, FunctionSpec], traffic: str) -> list[Line]:
    """What one click costs after the redirect: the queue, the ingest function, the counters.

    Queue figures are the bench's, per redirect: requests per 64 KB sent, and the event
    source's receives (10 messages, or 64 KB, per request) and deletes (10 per request). Under
    sustained load an ingest batch is as large as in the bench's ingest run; at idle traffic each
    message is a batch of its own, as the bench ran them."""
    delivery = bench["packing"][traffic]
    messages = delivery["sqs_messages_per_redirect"]
    receives = max(messages / MESSAGES_PER_SQS_REQUEST, delivery["sqs_bytes_per_redirect"] / SQS_BILLING_CHUNK)
    if traffic == "idle":
        clicks_per_batch = delivery["clicks_per_message"]
        batch_ms, writes_per_batch = delivery["ingest_ms_per_batch"], delivery["ingest_dynamodb_writes_per_batch"]
    else:
        ingest = bench["ingest"]
        clicks_per_batch = ingest["clicks"] / max(ingest["batches"], 1)
        batch_ms = ingest["ms_per_batch"]
        writes_per_batch = ingest["dynamodb_writes_per_1000_clicks"] * clicks_per_batch / 1000
    per_click = 1 / clicks_per_batch
    spec = specs["IngestFunction"]
    lines = [
        Line(
            f"SQS SendMessage ({delivery['clicks_per_message']:g} clicks per message)",
            delivery["sqs_send_requests_per_redirect"],
            "requests",
            PRICES["sqs_request"],
        ),
        Line(
            "SQS ReceiveMessage + DeleteMessageBatch (event source)",
            receives + messages / MESSAGES_PER_SQS_REQUEST,
            "requests",
            PRICES["sqs_request"],
        ),
        *lambda_lines(f"IngestFunction, {clicks_per_batch:.0f} clicks per batch", spec, billed_ms(batch_ms), per_click),
        Line(
            "DynamoDB writes (click counters)",
            writes_per_batch * per_click,
            "write units",
            PRICES["dynamodb_write_unit"],
        ),
        log_line(
            "CloudWatch Logs (the redirect's metrics, one EMF record per batch)", redirect_metrics_bytes() * per_click
        ),
        log_line("CloudWatch Logs (ingest's metrics and log line, per batch)", INGEST_LOG_BYTES_PER_BATCH * per_click),
    ]
    if spec.platform_logs:
        lines.append(log_line("CloudWatch Logs (ingest platform lines, per batch)", PLATFORM_LOG_BYTES * per_click))
    return lines


def redirect_billed_ms(bench: dict[str, Any], case: str, traffic: str) -> float:
    """The mean billed milliseconds of a redirect: measured per invocation on hits (handler and
    extension, each invocation rounded up), plus what a miss's handler takes longer."""
    redirect = bench["redirect"]
    longer_us = redirect[f"ours_{case}"]["p50_us"] - redirect["ours_hit"]["p50_us"]
    measured = float(bench["packing"][traffic]["billed_ms_mean"])
    return measured + math.ceil(max(0.0, float(longer_us)) / 1000)


def redirect_lines(
    bench: dict[str, Any], specs: dict[str, FunctionSpec], case: str, traffic: str, regions: int = 1
) -> list[Line]:
    """A redirect answered in its own region (a hit or a miss reads only there), with its click
    counted there and the counter writes replicated to the deployment's other regions."""
    measured = bench["redirect"][f"ours_{case}"]
    spec = specs["RedirectFunction"]
    lines = [
        Line(API_REQUEST_ITEM, 1, "requests", PRICES["http_api_request"]),
        *lambda_lines("RedirectFunction", spec, redirect_billed_ms(bench, case, traffic), 1),
        Line(
            "DynamoDB GetItem (strongly consistent)",
            measured["aws_calls_before_response"],
            "read units",
            PRICES["dynamodb_read_unit"],
        ),
    ]
    if access_log_bytes():
        lines.append(log_line(ACCESS_LOG_ITEM, access_log_bytes(), access_log_price_per_gb()))
    if spec.platform_logs:
        lines.append(log_line("CloudWatch Logs (Lambda start/report lines)", PLATFORM_LOG_BYTES))
    lines += click_analytics_lines(bench, specs, traffic)
    return lines + replication_lines(lines, regions)


def create_lines(bench: dict[str, Any], specs: dict[str, FunctionSpec], regions: int = 1) -> list[Line]:
    """A create, its writes replicated to the deployment's other regions."""
    create = bench["create"]
    spec = specs["CreateFunction"]
    calls = create["calls"]
    links = create["links"]
    lines = [
        Line(API_REQUEST_ITEM, 1, "requests", PRICES["http_api_request"]),
        *lambda_lines("CreateFunction", spec, billed_ms(create["p50_ms"]), 1),
        Line(
            "DynamoDB GetItem (API key, eventually consistent: half a unit)",
            calls.get("dynamodb.GetItem", 0) / links / 2,
            "read units",
            PRICES["dynamodb_read_unit"],
        ),
        Line(
            "DynamoDB PutItem (link) + UpdateItem (id block)",
            (calls.get("dynamodb.PutItem", 0) + calls.get("dynamodb.UpdateItem", 0)) / links,
            "write units",
            PRICES["dynamodb_write_unit"],
        ),
        log_line("CloudWatch Logs (one 'link created' line)", 400),
    ]
    if create_rate_limited():  # the bench runs without it (it creates 1,300 links with one key)
        lines.append(
            Line("DynamoDB UpdateItem (the key's rate window)", 1, "write units", PRICES["dynamodb_write_unit"])
        )
    if spec.platform_logs:
        lines.append(log_line("CloudWatch Logs (Lambda start/report lines)", PLATFORM_LOG_BYTES))
    return lines + replication_lines(lines, regions)


def totals(lines: list[Line]) -> tuple[float, float]:
    """Per million: at the first volume tier, and beyond 300 million API requests a month."""
    total = sum(line.cost_per_million for line in lines)
    api_requests = sum(line.quantity for line in lines if line.item == API_REQUEST_ITEM)
    discount = api_requests * (PRICES["http_api_request"] - PRICES["http_api_request_over_300m"]) * 1e6
    return total, total - discount


def table(title: str, lines: list[Line], write: Callable[[str], None]) -> tuple[float, float]:
    width = max(len(line.item) for line in lines)
    write(f"\n{title}")
    write(f"  {'item':<{width}} {'per request':>12} {'unit':<12} {'unit price $':>12} {'$ per 1M':>9}")
    for line in lines:
        write(
            f"  {line.item:<{width}} {line.quantity:>12.6g} {line.unit:<12} {line.unit_price:>12.6g} "
            f"{line.cost_per_million:>9.4f}"
        )
    total, at_scale = totals(lines)
    write(f"  {'total':<{width}} {'':>12} {'':<12} {'':>12} {total:>9.4f}")
    write(f"  {'total beyond 300 M API requests a month':<{width}} {'':>12} {'':<12} {'':>12} {at_scale:>9.4f}")
    return total, at_scale


def markdown_table(title: str, lines: list[Line], write: Callable[[str], None]) -> tuple[float, float]:
    """The same table in Markdown, as docs/cost.md shows it (`python -m tools.cost --markdown`)."""
    write(f"\n**{title}**\n")
    write("| item | per request | unit | unit price $ | $ per million |")
    write("| --- | ---: | --- | ---: | ---: |")
    for line in lines:
        write(
            f"| {line.item} | {line.quantity:.6g} | {line.unit} | {line.unit_price:.6g} | {line.cost_per_million:.4f} |"
        )
    total, at_scale = totals(lines)
    write(f"| **total** | | | | **{total:.4f}** |")
    write(f"| total beyond 300 M API requests a month ($0.90 per million) | | | | {at_scale:.4f} |")
    return total, at_scale


def markdown_lines(lines: list[Line]) -> str:
    """Lines as the rows of a Markdown table, without a total."""
    rows = ["| item | per request | unit | unit price $ | $ per million |", "| --- | ---: | --- | ---: | ---: |"]
    rows += [
        f"| {line.item} | {line.quantity:.6g} | {line.unit} | {line.unit_price:.6g} | {line.cost_per_million:.4f} |"
        for line in lines
    ]
    return "\n".join(rows)


def verdict(total: float) -> str:
    return "met" if total <= TARGET_PER_MILLION_REDIRECTS else "NOT met"


def fixed_floor(api_request_price: float) -> float:
    """Per million redirects, what no duration, write, log or packing is in: the API request and
    the invocation."""
    return (api_request_price + PRICES["lambda_request"]) * 1e6


def priced_tables(bench: dict[str, Any], specs: dict[str, FunctionSpec]) -> dict[str, tuple[str, list[Line]]]:
    """Every table `make cost` prints, by name: its title and its lines."""
    tables = {}
    for traffic, described in TRAFFIC.items():
        for case in ("hit", "miss"):
            title = f"Per million redirects, cache {case}, {described}, click analytics included"
            tables[f"redirect_{case}_{traffic}"] = (title, redirect_lines(bench, specs, case, traffic))
    tables["create"] = ("Per million creates", create_lines(bench, specs))
    return tables


def per_region_count(bench: dict[str, Any], specs: dict[str, FunctionSpec]) -> dict[str, dict[int, float]]:
    """The price per million of a redirect (hit and miss, each traffic) and a create, at the first
    tier, for each deployment of REGION_COUNTS regions."""
    prices: dict[str, dict[int, float]] = {}
    for traffic in TRAFFIC:
        for case in ("hit", "miss"):
            prices[f"redirect_{case}_{traffic}"] = {
                n: totals(redirect_lines(bench, specs, case, traffic, n))[0] for n in REGION_COUNTS
            }
    prices["create"] = {n: totals(create_lines(bench, specs, n))[0] for n in REGION_COUNTS}
    return prices


def without_access_logs(bench: dict[str, Any], specs: dict[str, FunctionSpec]) -> tuple[float, float] | None:
    """A hit under sustained load with `AccessLogs=Disabled`, when the template enables them."""
    if not access_log_bytes():
        return None
    hit_lines = [line for line in redirect_lines(bench, specs, "hit", "sustained") if line.item != ACCESS_LOG_ITEM]
    return totals(hit_lines)


def per_million_redirects(bytes_per_redirect: float, price_per_gb: float) -> float:
    return bytes_per_redirect / 1e9 * price_per_gb * 1e6


def cost_page(bench: dict[str, Any], specs: dict[str, FunctionSpec], tables: dict[str, tuple[str, list[Line]]]) -> str:
    """docs/cost.md: the tables as Markdown and the figures the text quotes, all from this run."""
    rendered: list[str] = []
    for title, lines in tables.values():
        table: list[str] = []
        markdown_table(title, lines, table.append)
        rendered.append("\n".join(table).strip("\n"))
    quiet = without_access_logs(bench, specs)
    sqs = {
        traffic: sum(line.cost_per_million for line in lines if line.item.startswith("SQS"))
        for traffic, lines in ((t, tables[f"redirect_hit_{t}"][1]) for t in TRAFFIC)
    }
    return (
        pages()
        .get_template("cost.md.j2")
        .render(
            machine=bench.get("machine", {"cpus": "?"}),
            tables=rendered,
            regions=per_region_count(bench, specs),
            replicated_hit=markdown_lines(
                replication_lines(redirect_lines(bench, specs, "hit", "sustained"), REGION_COUNTS[-1])
            ),
            target=TARGET_PER_MILLION_REDIRECTS,
            totals={name: totals(lines) for name, (_, lines) in tables.items()},
            verdict={"sustained": verdict(totals(tables["redirect_hit_sustained"][1])[0])},
            without_access_logs=quiet[0] if quiet else None,
            read_price=PRICES["dynamodb_read_unit"] * 1e6,
            sustained=bench["packing"]["sustained"],
            idle=bench["packing"]["idle"],
            sqs=sqs,
            fixed=(fixed_floor(PRICES["http_api_request"]), fixed_floor(PRICES["http_api_request_over_300m"])),
            cut={
                "metrics_record": per_million_redirects(redirect_metrics_bytes(), PRICES["logs_ingested_gb"]),
                "platform_lines": per_million_redirects(PLATFORM_LOG_BYTES, PRICES["logs_ingested_gb"]),
                "access_log": per_million_redirects(access_log_bytes(), access_log_price_per_gb()),
                "access_log_standard": per_million_redirects(access_log_bytes(), PRICES["logs_ingested_gb"]),
            },
        )
    )


def main() -> None:
    if not BENCH_RESULTS.is_file():
        raise SystemExit("no bench-results/latest.json: run `make bench` first")
    bench = json.loads(BENCH_RESULTS.read_text())
    specs = function_specs()
    render = markdown_table if "--markdown" in sys.argv[1:] else table
    tables = priced_tables(bench, specs)
    results = {name: render(title, lines, print) for name, (title, lines) in tables.items()}
    sustained = bench["packing"]["sustained"]
    print(
        f"\nTarget: ≤ ${TARGET_PER_MILLION_REDIRECTS:.2f} per million redirects including click analytics, "
        f"under sustained load ({sustained['rate_per_second']:g} redirects/s per environment in the bench: "
        f"{sustained['clicks_per_message']:g} clicks per message)."
    )
    for name, (first_tier, at_scale) in results.items():
        if name.startswith("redirect_"):
            print(
                f"  {name}: ${first_tier:.4f} ({verdict(first_tier)}); "
                f"beyond 300 M API requests a month: ${at_scale:.4f} ({verdict(at_scale)})"
            )
    if quiet := without_access_logs(bench, specs):
        first_tier, at_scale = quiet
        print(
            f"  redirect_hit_sustained with AccessLogs=Disabled: ${first_tier:.4f} ({verdict(first_tier)}); "
            f"beyond 300 M API requests a month: ${at_scale:.4f} ({verdict(at_scale)})"
        )
    print(
        "  Fixed part (API request + invocation): "
        f"${fixed_floor(PRICES['http_api_request']):.2f}, "
        f"${fixed_floor(PRICES['http_api_request_over_300m']):.2f} beyond 300 M a month."
    )
    regional = per_region_count(bench, specs)
    print("\nPer million, by the number of regions (every write replicated to the others):")
    for name, by_count in regional.items():
        print("  " + name + ": " + ", ".join(f"N = {n}: ${price:.4f}" for n, price in by_count.items()))
    summary = {name: round(first, 4) for name, (first, _) in results.items()}
    summary |= {f"{name}_regions_{n}": round(price, 4) for name, by in regional.items() for n, price in by.items()}
    summary |= {f"{name}_beyond_300m": round(at_scale, 4) for name, (_, at_scale) in results.items()}
    print(json.dumps(summary))
    PAGE.write_text(cost_page(bench, specs, tables))
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
