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


def test_the_redirect_pays_no_platform_log_lines_but_its_metrics_and_access_log():
    specs = cost.function_specs()
    assert not specs["RedirectFunction"].platform_logs  # SystemLogLevel WARN in the template
    items = [line.item for line in cost.redirect_lines(BENCH, specs, "hit")]
    assert "CloudWatch Logs (Lambda start/report lines)" not in items
    assert "CloudWatch Logs (metrics record, EMF)" in items
    assert "CloudWatch Logs (API access log line)" in items
    assert 100 < cost.redirect_metrics_bytes() < 2000
    assert 100 < cost.access_log_bytes() < 1000


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
