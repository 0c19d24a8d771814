"""`make cost`'s edge tier (docs/edge.md): what a redirect answered at the edge costs, and the
blend of edge and regional answers when 50, 80 or 100 % of follows are answered at the POP.

A follow answered at the edge pays CloudFront's request (by price class: PriceClass_100 serves
North America and Europe, priced apart), the viewer-request function, one KeyValueStore read,
the response's bytes out, its real-time log line, the line's Kinesis record (on-demand: per
record rounded up to 1 KB, in and out; provisioned: a PUT payload unit, shard hours apart) and
its click in ingest (an invocation per batch, one pack per click: counter writes of a hot link's
transactions, EDGE_WRITE_UNITS_PER_CLICK). A follow the edge passes on pays all of that but the
click's ingest, and the regional redirect as `make cost` prices it (tools.developers.cost). List prices,
us-east-1 and the named CloudFront regions, on-demand, no free tier: recheck before relying on them.
"""

from collections.abc import Callable
from typing import Any

from tools.developers.cost.lines import lambda_lines
from tools.developers.cost.prices import PRICES, FunctionSpec, Line, billed_ms

TARGET_PER_MILLION_EDGE_REDIRECTS = 1.20
EDGE_SHARES = (0.5, 0.8, 1.0)
# HTTPS requests per price class region (CloudFront's request price; North America and Europe are
# PriceClass_100's regions).
CLOUDFRONT_HTTPS_REQUEST = {"North America": 1.00 / 1e6, "Europe": 1.20 / 1e6}
EDGE_PRICES = {
    "cloudfront_function_invocation": 0.10 / 1e6,
    "key_value_store_read": 0.03 / 1e6,
    "cloudfront_transfer_out_gb": 0.085,  # North America and Europe, the first 10 TB a month
    "realtime_log_line": 0.01 / 1e6,
    "kinesis_on_demand_in_gb": 0.08,  # per GB written, each record rounded up to 1 KB
    "kinesis_on_demand_out_gb": 0.04,  # per GB read by the event source
    "kinesis_put_payload_unit": 0.014 / 1e6,  # provisioned: per 25 KB unit (one per record)
    "kinesis_shard_hour": 0.015,  # provisioned: 1,000 records/s in per shard
}
# CloudFront's Security Savings Bundle: a monthly spend committed for a year buys CloudFront usage
# at up to 30 % off (CloudFront Developer Guide, "CloudFront Security Savings Bundle"). Applied here
# only to the usage types its announcement lists that a redirect pays: HTTP/S requests and data
# transfer out (not the function, the store or the logs).
SAVINGS_BUNDLE_DISCOUNT = 0.30
SAVINGS_BUNDLE_LINES = ("CloudFront HTTPS request", "CloudFront data transfer out")
# A follow reads the store once (edge/viewer-request.js): the link's `<host>/<code>` entry.
KEY_VALUE_STORE_READS_PER_FOLLOW = 1
# The steady rate at which a provisioned stream's shard hours are shared out (records per second).
PROVISIONED_RATE_PER_SECOND = 1000
SHARD_RECORDS_PER_SECOND = 1000
# A redirect's answer as it leaves the POP: status line, Location, caching and security headers.
EDGE_RESPONSE_BYTES = 450
# A real-time log line of edge.yaml's 13 fields with a browser's headers (cs-headers is cut at 800 bytes).
LOG_LINE_BYTES = 900
KINESIS_RECORD_UNIT = 1024
# Ingest counts each edge click as its own pack (its request id): a hot link's day takes a
# transaction of 64 packs, counters and ledger window, two items at two write units each.
EDGE_WRITE_UNITS_PER_CLICK = 2 * 2 / 64
EDGE_CLICKS_PER_BATCH = 1000  # the event source's batch size (template.yaml's EdgeClicksMapping)


def kinesis_lines(provisioned: bool) -> list[Line]:
    """A log line's Kinesis record: on-demand (the template's: no capacity to plan), or
    provisioned, its shard hours shared by PROVISIONED_RATE_PER_SECOND records a second."""
    if provisioned:
        shards = -(-PROVISIONED_RATE_PER_SECOND // SHARD_RECORDS_PER_SECOND)
        return [
            Line("Kinesis provisioned, PUT payload unit", 1, "units", EDGE_PRICES["kinesis_put_payload_unit"]),
            Line(
                f"Kinesis provisioned, {shards} shard(s) at {PROVISIONED_RATE_PER_SECOND} records/s",
                shards / (PROVISIONED_RATE_PER_SECOND * 3600),
                "shard hours",
                EDGE_PRICES["kinesis_shard_hour"],
            ),
        ]
    record_gb = max(LOG_LINE_BYTES, KINESIS_RECORD_UNIT) / 1e9
    return [
        Line("Kinesis on-demand, record in (1 KB)", record_gb, "GB", EDGE_PRICES["kinesis_on_demand_in_gb"]),
        Line("Kinesis on-demand, read by ingest", LOG_LINE_BYTES / 1e9, "GB", EDGE_PRICES["kinesis_on_demand_out_gb"]),
    ]


def edge_request_lines(region: str, provisioned: bool = False) -> list[Line]:
    """What every request through the edge tier costs, answered at the POP or not."""
    return [
        Line(f"CloudFront HTTPS request ({region})", 1, "requests", CLOUDFRONT_HTTPS_REQUEST[region]),
        Line("CloudFront Function (viewer request)", 1, "invocations", EDGE_PRICES["cloudfront_function_invocation"]),
        Line(
            "KeyValueStore read (the link's `<host>/<code>` entry)",
            KEY_VALUE_STORE_READS_PER_FOLLOW,
            "reads",
            EDGE_PRICES["key_value_store_read"],
        ),
        Line("CloudFront real-time log line (100 % sampling)", 1, "lines", EDGE_PRICES["realtime_log_line"]),
        *kinesis_lines(provisioned),
    ]


def edge_redirect_lines(
    bench: dict[str, Any], specs: dict[str, FunctionSpec], region: str, provisioned: bool = False
) -> list[Line]:
    """A follow answered at the POP, its click counted from its log line."""
    ingest = bench["ingest"]
    batch_ms = ingest["ms_per_batch"] * EDGE_CLICKS_PER_BATCH / max(ingest["clicks"] / max(ingest["batches"], 1), 1)
    return [
        *edge_request_lines(region, provisioned),
        Line(
            "CloudFront data transfer out (the redirect)",
            EDGE_RESPONSE_BYTES / 1e9,
            "GB",
            EDGE_PRICES["cloudfront_transfer_out_gb"],
        ),
        *lambda_lines(
            f"IngestFunction, {EDGE_CLICKS_PER_BATCH} log lines per batch",
            specs["IngestFunction"],
            billed_ms(batch_ms),
            1 / EDGE_CLICKS_PER_BATCH,
        ),
        Line(
            "DynamoDB writes (click counters, one pack per edge click)",
            EDGE_WRITE_UNITS_PER_CLICK,
            "write units",
            PRICES["dynamodb_write_unit"],
        ),
    ]


def with_savings_bundle(lines: list[Line]) -> float:
    """Per million, the lines' cost with the Savings Bundle's discount on the usage it covers."""
    return sum(
        line.cost_per_million * (1 - SAVINGS_BUNDLE_DISCOUNT if line.item.startswith(SAVINGS_BUNDLE_LINES) else 1)
        for line in lines
    )


def passed_on_lines(regional: list[Line], region: str) -> list[Line]:
    """A follow the function passes on: the edge's share of it, then the regional redirect."""
    return [*edge_request_lines(region), *regional]


def blend(edge: float, passed_on: float, share: float) -> float:
    """Per million follows when `share` of them are answered at the edge."""
    return share * edge + (1 - share) * passed_on


def edge_tables(
    bench: dict[str, Any], specs: dict[str, FunctionSpec], regional: list[Line]
) -> dict[str, tuple[str, list[Line]]]:
    """The edge tier's tables, by name: an edge-answered redirect and a passed-on one per region."""
    tables = {}
    for region in CLOUDFRONT_HTTPS_REQUEST:
        key = region.lower().replace(" ", "_")
        tables[f"edge_{key}"] = (
            f"Per million redirects answered at the edge ({region}), click analytics included",
            edge_redirect_lines(bench, specs, region),
        )
        tables[f"edge_passed_on_{key}"] = (
            f"Per million follows the edge passes on ({region}): the edge's part and the regional hit",
            passed_on_lines(regional, region),
        )
    return tables


def print_edge_costs(
    bench: dict[str, Any],
    specs: dict[str, FunctionSpec],
    regional: list[Line],
    render: Callable[[str, list[Line], Callable[[str], None]], tuple[float, float]],
) -> dict[str, float]:
    """Print the edge tier's tables and blends; the figures by name (for the summary line)."""
    figures: dict[str, float] = {}
    tables = edge_tables(bench, specs, regional)
    for name, (title, lines) in tables.items():
        figures[name] = render(title, lines, print)[0]
    print(f"\nEdge tier: target ≤ ${TARGET_PER_MILLION_EDGE_REDIRECTS:.2f} per million edge-answered redirects.")
    for region in CLOUDFRONT_HTTPS_REQUEST:
        key = region.lower().replace(" ", "_")
        edge, passed_on = figures[f"edge_{key}"], figures[f"edge_passed_on_{key}"]
        met = "met" if edge <= TARGET_PER_MILLION_EDGE_REDIRECTS else "NOT met"
        shares = ", ".join(f"{share:.0%} at the edge: ${blend(edge, passed_on, share):.4f}" for share in EDGE_SHARES)
        print(f"  {region}: ${edge:.4f} ({met}); blend per million follows: {shares}")
        steady_lines = edge_redirect_lines(bench, specs, region, provisioned=True)
        steady = sum(line.cost_per_million for line in steady_lines)
        figures[f"edge_{key}_provisioned_kinesis"] = steady
        print(f"    with a provisioned stream at {PROVISIONED_RATE_PER_SECOND} lines/s: ${steady:.4f}")
        bundled = with_savings_bundle(steady_lines)
        figures[f"edge_{key}_savings_bundle"] = bundled
        met = "met" if bundled <= TARGET_PER_MILLION_EDGE_REDIRECTS else "NOT met"
        bundle = f"the Security Savings Bundle ({SAVINGS_BUNDLE_DISCOUNT:.0%} off requests and bytes)"
        print(f"    and with {bundle}: ${bundled:.4f} ({met})")
        figures |= {f"edge_blend_{key}_{share:.0%}": blend(edge, passed_on, share) for share in EDGE_SHARES}
    return figures
