"""The cost model prices what the template configures and the benchmark measured."""

import pytest

from tools import cost

BENCH = {
    "create": {
        "links": 200,
        "p50_ms": 7.4,
        "calls": {"dynamodb.GetItem": 200, "dynamodb.PutItem": 200, "dynamodb.UpdateItem": 1},
    },
    "redirect": {
        "ours_hit": {"p50_us": 21.0, "extension_after_response_p50_us": 3500.0, "aws_calls_before_response": 0.0},
        "ours_miss": {"p50_us": 6600.0, "extension_after_response_p50_us": 3500.0, "aws_calls_before_response": 1.0},
    },
    "ingest": {"clicks": 1000, "batches": 10, "ms_per_batch": 80.0, "dynamodb_writes_per_1000_clicks": 124.0},
}


def test_a_hit_prices_one_api_request_one_invocation_and_the_click_pipeline():
    specs = cost.function_specs()
    lines = cost.redirect_lines(BENCH, specs, "hit")
    items = {line.item: line for line in lines}
    assert items["API Gateway HTTP API request"].cost_per_million == pytest.approx(1.00)
    assert items["Lambda requests (RedirectFunction)"].cost_per_million == pytest.approx(0.20)
    assert items["DynamoDB GetItem (strongly consistent)"].quantity == 0
    assert items["SQS SendMessage (the click)"].cost_per_million == pytest.approx(0.40)
    assert items["SQS ReceiveMessage + DeleteMessageBatch (event source)"].quantity == pytest.approx(0.2)
    assert items["DynamoDB writes (click counters)"].cost_per_million == pytest.approx(0.124 * 0.625)
    # 21 µs + 3.5 ms of extension time is billed as 4 ms of the template's memory, on arm64.
    [duration] = [line for line in lines if line.item.startswith("Lambda duration (RedirectFunction")]
    spec = specs["RedirectFunction"]
    assert "4 ms billed" in duration.item
    assert duration.quantity == pytest.approx(spec.memory_gb * 0.004)
    assert duration.unit_price == cost.PRICES["lambda_gb_second_arm64"]
    # One ingest invocation per 100 clicks.
    assert items["Lambda requests (IngestFunction, 100 clicks per batch)"].quantity == pytest.approx(0.01)


def test_the_redirect_writes_no_log_record_but_its_access_log_line():
    specs = cost.function_specs()
    assert not specs["RedirectFunction"].platform_logs  # SystemLogLevel WARN in the template
    lines = {line.item: line for line in cost.redirect_lines(BENCH, specs, "hit")}
    assert "CloudWatch Logs (Lambda start/report lines)" not in lines
    # Its metrics ride on its click: one record per ingest batch (here, of 100 clicks).
    metrics = lines["CloudWatch Logs (the redirect's metrics, one EMF record per batch)"]
    assert metrics.quantity == pytest.approx(cost.redirect_metrics_bytes() / 100 / 1e9)
    assert 100 < cost.redirect_metrics_bytes() < 2000
    # The access log line, priced in its log group's class (Infrequent Access in the template).
    access = lines["CloudWatch Logs (API access log line)"]
    assert access.unit_price == cost.PRICES["logs_ingested_gb_infrequent_access"]
    assert 100 < cost.access_log_bytes() < 400


def test_beyond_300_million_requests_a_month_an_api_request_costs_a_tenth_less():
    lines = cost.redirect_lines(BENCH, cost.function_specs(), "hit")
    first_tier, at_scale = cost.totals(lines)
    assert first_tier == pytest.approx(sum(line.cost_per_million for line in lines))
    assert first_tier - at_scale == pytest.approx(0.10)
    assert cost.fixed_floor(cost.PRICES["http_api_request"]) == pytest.approx(1.00 + 0.20 + 0.40 + 0.08)


def test_a_miss_adds_exactly_one_strongly_consistent_read():
    specs = cost.function_specs()
    hit = sum(line.cost_per_million for line in cost.redirect_lines(BENCH, specs, "hit"))
    miss_lines = cost.redirect_lines(BENCH, specs, "miss")
    miss = sum(line.cost_per_million for line in miss_lines)
    read = next(line for line in miss_lines if line.item.startswith("DynamoDB GetItem"))
    assert read.cost_per_million == pytest.approx(0.125)
    extra_duration = miss - hit - read.cost_per_million
    assert 0 < extra_duration < 0.05  # the miss's longer invocation, nothing else


def test_a_create_prices_its_key_read_and_its_writes():
    items = {line.item: line for line in cost.create_lines(BENCH, cost.function_specs())}
    assert items["DynamoDB GetItem (API key, eventually consistent: half a unit)"].quantity == 0.5
    assert items["DynamoDB PutItem (link) + UpdateItem (id block)"].quantity == pytest.approx(1.005)
    assert items["DynamoDB UpdateItem (the key's rate window)"].quantity == 1  # on by default
