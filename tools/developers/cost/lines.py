"""The lines of each table `make cost` prints: a redirect (hit or miss, sustained or idle
traffic) with its click's analytics, a create, and their writes replicated to other regions."""

import math
from typing import Any

from tools.developers.cost.deployment import (
    access_log_bytes,
    access_log_price_per_gb,
    create_rate_limited,
    redirect_metrics_bytes,
)
from tools.developers.cost.prices import (
    ACCESS_LOG_ITEM,
    API_REQUEST_ITEM,
    MESSAGES_PER_SQS_REQUEST,
    PLATFORM_LOG_BYTES,
    PRICES,
    REGION_COUNTS,
    REPLICATED_BYTES_PER_WRITE_UNIT,
    SQS_BILLING_CHUNK,
    TRAFFIC,
    FunctionSpec,
    Line,
    billed_ms,
    log_line,
    totals,
)

# Ingest's own records per batch: its EMF record (ClicksIngested, DuplicatesSkipped) and its
# "batch counted" log line, each about 500 bytes with Powertools' fields.
INGEST_LOG_BYTES_PER_BATCH = 1000


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
