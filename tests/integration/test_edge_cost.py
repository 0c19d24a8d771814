"""The edge tier's cost: an edge-answered redirect priced line by line, and the blends."""

import pytest

from tests.integration.test_cost import BENCH, items_of
from tools.developers import cost
from tools.developers.cost import edge as edge_cost
from tools.developers.cost.page import table


def regional_hit():
    return cost.redirect_lines(BENCH, cost.function_specs(), "hit", "sustained")


def test_an_edge_answered_redirect_pays_the_pop_the_log_line_and_its_click_never_the_region():
    lines = items_of(edge_cost.edge_redirect_lines(BENCH, cost.function_specs(), "North America"))
    assert lines["CloudFront HTTPS request (North America)"].cost_per_million == pytest.approx(1.00)
    assert lines["CloudFront Function (viewer request)"].cost_per_million == pytest.approx(0.10)
    # One read: the link's entry under the host it is followed on
    assert lines["KeyValueStore read (the link's `<host>/<code>` entry)"].cost_per_million == pytest.approx(0.03)
    assert lines["CloudFront real-time log line (100 % sampling)"].cost_per_million == pytest.approx(0.01)
    # A Kinesis record is billed as at least 1 KB
    assert lines["Kinesis on-demand, record in (1 KB)"].quantity == pytest.approx(1024 / 1e9)
    assert not any("API Gateway" in item or "RedirectFunction" in item or "SQS" in item for item in lines)
    # One ingest invocation per 1,000 log lines
    assert lines["Lambda requests (IngestFunction, 1000 log lines per batch)"].quantity == pytest.approx(1 / 1000)


def test_europe_pays_cloudfronts_dearer_request_and_nothing_else_differs():
    specs = cost.function_specs()
    america = cost.totals(edge_cost.edge_redirect_lines(BENCH, specs, "North America"))[0]
    europe = cost.totals(edge_cost.edge_redirect_lines(BENCH, specs, "Europe"))[0]
    assert europe - america == pytest.approx(0.20)


def test_the_blend_is_the_share_answered_at_the_edge_and_passed_on_follows_pay_both_parts():
    specs = cost.function_specs()
    tables = edge_cost.edge_tables(BENCH, specs, regional_hit())
    edge = cost.totals(tables["edge_north_america"][1])[0]
    passed_on = cost.totals(tables["edge_passed_on_north_america"][1])[0]
    assert passed_on == pytest.approx(
        cost.totals(regional_hit())[0] + cost.totals(edge_cost.edge_request_lines("North America"))[0]
    )
    assert edge_cost.blend(edge, passed_on, 1.0) == pytest.approx(edge)
    assert edge_cost.blend(edge, passed_on, 0.5) == pytest.approx((edge + passed_on) / 2)


def test_make_cost_prints_the_edge_tables_and_blends(capsys):
    figures = edge_cost.print_edge_costs(BENCH, cost.function_specs(), regional_hit(), table)
    printed = capsys.readouterr().out
    assert "Per million redirects answered at the edge (North America)" in printed
    assert f"North America: ${figures['edge_north_america']:.4f}" in printed
    assert {"edge_blend_europe_50%", "edge_blend_europe_80%", "edge_blend_europe_100%"} <= set(figures)


def test_the_savings_bundle_takes_30_percent_off_requests_and_bytes_only():
    lines = edge_cost.edge_redirect_lines(BENCH, cost.function_specs(), "Europe", provisioned=True)
    by_item = items_of(lines)
    covered = (
        by_item["CloudFront HTTPS request (Europe)"].cost_per_million
        + by_item["CloudFront data transfer out (the redirect)"].cost_per_million
    )
    full = sum(line.cost_per_million for line in lines)
    assert edge_cost.with_savings_bundle(lines) == pytest.approx(full - 0.30 * covered)
    # The function, the store, the logs, Kinesis and ingest keep their price.
    assert covered == pytest.approx(1.20 + 450 / 1e9 * 0.085 * 1e6)
