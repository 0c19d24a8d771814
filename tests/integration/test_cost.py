"""The cost model prices what the template configures and the benchmark measured."""

import json

import pytest

from tools.developers import cost

BENCH = {
    "create": {
        "links": 200,
        "p50_ms": 7.4,
        "calls": {"dynamodb.GetItem": 200, "dynamodb.PutItem": 200, "dynamodb.UpdateItem": 1},
    },
    "redirect": {
        "ours_hit": {"p50_us": 21.0, "aws_calls_before_response": 0.0},
        "ours_miss": {"p50_us": 6600.0, "aws_calls_before_response": 1.0},
    },
    "packing": {
        "sustained": {
            "rate_per_second": 100,
            "clicks_per_message": 100.0,
            "sqs_send_requests_per_redirect": 0.01,
            "sqs_messages_per_redirect": 0.01,
            "sqs_bytes_per_redirect": 300.0,
            "billed_ms_mean": 1.2,
        },
        "idle": {
            "rate_per_second": 0.8,
            "clicks_per_message": 1.0,
            "sqs_send_requests_per_redirect": 1.0,
            "sqs_messages_per_redirect": 1.0,
            "sqs_bytes_per_redirect": 350.0,
            "billed_ms_mean": 12.0,
            "ingest_ms_per_batch": 6.2,
            "ingest_dynamodb_writes_per_batch": 1.0,
        },
    },
    "ingest": {"clicks": 1000, "batches": 10, "ms_per_batch": 80.0, "dynamodb_writes_per_1000_clicks": 124.0},
}


def items_of(lines):
    return {line.item: line for line in lines}


def test_under_sustained_load_a_hit_prices_its_share_of_a_packed_message():
    specs = cost.function_specs()
    lines = cost.redirect_lines(BENCH, specs, "hit", "sustained")
    items = items_of(lines)
    assert items["API Gateway HTTP API request"].cost_per_million == pytest.approx(1.00)
    assert items["Lambda requests (RedirectFunction)"].cost_per_million == pytest.approx(0.20)
    assert items["DynamoDB GetItem (strongly consistent)"].quantity == 0
    # One message per 100 redirects; its receive is billed by its 64 KB chunks, not per 10 messages
    assert items["SQS SendMessage (100 clicks per message)"].cost_per_million == pytest.approx(0.004)
    event_source = items["SQS ReceiveMessage + DeleteMessageBatch (event source)"]
    assert event_source.quantity == pytest.approx(300 / 65536 + 0.001)
    assert items["DynamoDB writes (click counters)"].cost_per_million == pytest.approx(0.124 * 0.625)
    # The measured mean billed time: 1.2 ms of the template's memory, on arm64
    [duration] = [line for line in lines if line.item.startswith("Lambda duration (RedirectFunction")]
    spec = specs["RedirectFunction"]
    assert "1.2 ms billed" in duration.item
    assert duration.quantity == pytest.approx(spec.memory_gb * 0.0012)
    assert duration.unit_price == cost.PRICES["lambda_gb_second_arm64"]
    # One ingest invocation per 100 clicks, billed as the bench measured it
    assert items["Lambda requests (IngestFunction, 100 clicks per batch)"].quantity == pytest.approx(0.01)


def test_at_idle_traffic_each_click_costs_a_message_an_ingest_invocation_and_a_write():
    items = items_of(cost.redirect_lines(BENCH, cost.function_specs(), "hit", "idle"))
    assert items["SQS SendMessage (1 clicks per message)"].cost_per_million == pytest.approx(0.40)
    assert items["SQS ReceiveMessage + DeleteMessageBatch (event source)"].quantity == pytest.approx(0.2)
    assert items["Lambda requests (IngestFunction, 1 clicks per batch)"].cost_per_million == pytest.approx(0.20)
    assert items["DynamoDB writes (click counters)"].cost_per_million == pytest.approx(0.625)
    # Each billed as the bench measured a batch of one message
    [duration] = [item for item in items if item.startswith("Lambda duration (IngestFunction")]
    assert "7 ms billed" in duration


def test_the_redirect_writes_no_log_record_but_its_access_log_line():
    specs = cost.function_specs()
    assert not specs["RedirectFunction"].platform_logs  # SystemLogLevel WARN in the template
    lines = items_of(cost.redirect_lines(BENCH, specs, "hit", "sustained"))
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
    lines = cost.redirect_lines(BENCH, cost.function_specs(), "hit", "sustained")
    first_tier, at_scale = cost.totals(lines)
    assert first_tier == pytest.approx(sum(line.cost_per_million for line in lines))
    assert first_tier - at_scale == pytest.approx(0.10)
    assert cost.fixed_floor(cost.PRICES["http_api_request"]) == pytest.approx(1.00 + 0.20)


def test_a_miss_adds_exactly_one_strongly_consistent_read():
    specs = cost.function_specs()
    hit = sum(line.cost_per_million for line in cost.redirect_lines(BENCH, specs, "hit", "sustained"))
    miss_lines = cost.redirect_lines(BENCH, specs, "miss", "sustained")
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


def test_several_regions_replicate_every_counter_write_and_a_creates_writes_to_each_other_region():
    specs = cost.function_specs()
    one = items_of(cost.redirect_lines(BENCH, specs, "hit", "sustained", regions=1))
    three = items_of(cost.redirect_lines(BENCH, specs, "hit", "sustained", regions=3))
    # One region: nothing is replicated
    assert not [item for item in one if "replicated" in item or "between regions" in item]
    # Three: each counter write unit once more in each of the two other regions, and sent there
    replicated = three["DynamoDB replicated writes (each write unit in 2 other regions)"]
    assert replicated.quantity == pytest.approx(0.124 * 2)
    assert replicated.cost_per_million == pytest.approx(0.124 * 2 * 0.625)
    transfer = three["Data transfer between regions (replication, ≤ 1 KB per write unit, to 2 regions)"]
    assert transfer.quantity == pytest.approx(0.124 * 2 * 1024 / 1e9)
    # and nothing else changes: the read (none on a hit) and the rest stay in the answering region
    assert {item: line for item, line in three.items() if item in one} == one
    # A create's link, id block and rate window writes: 2.005 write units, replicated twice
    create = items_of(cost.create_lines(BENCH, specs, regions=3))
    assert create["DynamoDB replicated writes (each write unit in 2 other regions)"].quantity == pytest.approx(
        2.005 * 2
    )


def test_make_cost_prints_the_price_per_million_redirects_for_one_and_three_regions(monkeypatch, tmp_path, capsys):
    results = tmp_path / "latest.json"
    results.write_text(json.dumps(BENCH))
    monkeypatch.setattr(cost, "BENCH_RESULTS", results)
    monkeypatch.setattr(cost, "ROOT", tmp_path)
    monkeypatch.setattr(cost, "PAGE", tmp_path / "cost.md")
    monkeypatch.setattr(cost, "cost_page", lambda *_: "page")
    cost.main()
    printed = capsys.readouterr().out
    regional = cost.per_region_count(BENCH, cost.function_specs())
    hit = regional["redirect_hit_sustained"]
    # Three regions cost exactly the replicated counter writes and their transfer more
    assert hit[3] - hit[1] == pytest.approx(0.124 * 2 * (0.625 + 1024 / 1e9 * 0.02 * 1e6))
    assert regional["redirect_hit_idle"][3] - regional["redirect_hit_idle"][1] == pytest.approx(
        2 * (0.625 + 1024 / 1e9 * 0.02 * 1e6)
    )
    assert f"redirect_hit_sustained: N = 1: ${hit[1]:.4f}, N = 3: ${hit[3]:.4f}" in printed
    summary = json.loads(printed.strip().splitlines()[-1])
    assert summary["redirect_hit_sustained_regions_3"] == round(hit[3], 4)
    assert summary["redirect_hit_sustained_regions_1"] == summary["redirect_hit_sustained"]
