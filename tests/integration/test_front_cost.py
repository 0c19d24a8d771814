"""`make cost`'s fronts: the load balancer priced by the hour, its addresses and its largest LCU
dimension in place of the HTTP API's request, the break-even between them, and each front's
capacity plan from the bench's figures and the template's settings."""

import copy
import json
from pathlib import Path

import pytest

from tools.developers import cost
from tools.developers.cost.capacity import CAPACITY_RATES, capacity_plan
from tools.developers.cost.deployment import api_stage_throttle, listener_rules
from tools.developers.cost.front_tables import capacity_tables, fronts_table
from tools.developers.cost.fronts import (
    HOURS_PER_MONTH,
    Capacity,
    api_per_million,
    behind_the_load_balancer,
    break_even_per_month,
    side_by_side,
)
from tools.developers.cost.prices import ACCESS_LOG_ITEM, API_REQUEST_ITEM

BENCH = json.loads((Path(__file__).parents[1] / "data" / "bench_report.json").read_text())


@pytest.fixture(scope="module")
def api_lines():
    return cost.redirect_lines(BENCH, cost.function_specs(), "hit", "sustained")


def test_visitors_new_connections_are_the_lcu_dimension_a_redirect_pays():
    capacity = Capacity.at(1000)
    # 1,000 fresh connections a second are 40 LCU; each open 60 s: 60,000 at once, 20 LCU
    assert capacity.new_connections == pytest.approx(40)
    assert capacity.active_connections == pytest.approx(20)
    # 1,150 bytes a redirect: 4.14 GB an hour, at 0.4 GB per LCU for Lambda targets
    assert capacity.processed_bytes == pytest.approx(1000 * 3600 * 1150 / 1e9 / 0.4)
    # every rule beyond the first 10 is an evaluation (balancer.yaml's rules, counted there)
    assert capacity.rule_evaluations == pytest.approx((listener_rules() - 10) * 1000 / 1000)
    assert capacity.billed() == pytest.approx(40)
    assert capacity.dominant() == "new connections"


def test_behind_the_load_balancer_the_api_request_and_its_log_line_give_way_to_hours_addresses_and_lcus(api_lines):
    lines = behind_the_load_balancer(api_lines, 1000)
    items = {line.item: line for line in lines}
    assert API_REQUEST_ITEM not in items
    assert ACCESS_LOG_ITEM not in items
    # Everything after the door is the same redirect
    kept = [line for line in api_lines if line.item not in (API_REQUEST_ITEM, ACCESS_LOG_ITEM)]
    assert lines[3:] == kept
    hours, addresses, lcus = lines[:3]
    assert hours.cost_per_million == pytest.approx(0.0225 / 3.6)  # 3.6 million redirects an hour
    assert addresses.cost_per_million == pytest.approx(2 * 0.005 / 3.6)
    assert lcus.cost_per_million == pytest.approx(40 * 0.008 / 3.6)


def test_at_1000_a_second_the_load_balancer_meets_the_target_and_the_api_pays_its_tier(api_lines):
    [slow, _, busy] = side_by_side(api_lines)
    assert busy["us-east-1"] <= 0.45
    assert busy["us-east-1"] < busy["eu-west-1"]  # the dearer hour in Ireland, the same LCU
    # 2.6 billion requests a month: all but the first 300 million at $0.90
    month = 1000 * 3600 * HOURS_PER_MONTH
    first_tier = sum(line.cost_per_million for line in api_lines)
    assert busy["api"] == pytest.approx(first_tier - 0.10 * (month - 300e6) / month)
    # At 10 a second the hours are most of the load balancer's price
    assert slow["us-east-1"] > 10 * busy["us-east-1"] / 4


def test_at_the_break_even_both_fronts_cost_the_same_month(api_lines):
    volume = break_even_per_month(api_lines)
    rate = volume / (3600 * HOURS_PER_MONTH)
    load_balancer = sum(line.cost_per_million for line in behind_the_load_balancer(api_lines, rate))
    assert volume < 300e6  # below the API's second tier, which the formula leaves out
    assert load_balancer == pytest.approx(api_per_million(api_lines, rate))
    assert 15e6 < volume < 40e6


def test_each_front_meets_its_limits_in_order_the_api_its_stage_throttle_first():
    plan = capacity_plan(BENCH, cost.function_specs())
    for limits in plan.values():
        assert [limit.reached_at for limit in limits] == sorted(limit.reached_at for limit in limits)
        assert all(len(limit.needs) == len(CAPACITY_RATES) for limit in limits)
    api, load_balancer = plan["HttpApi"], plan["LoadBalancer"]
    assert api[0].reached_at == api_stage_throttle()[0]
    assert load_balancer[0].name.startswith("Load balancer scaling")
    assert not any(limit.name.startswith("API") or "HTTP API" in limit.name for limit in load_balancer)
    # A redirect of a few ms: Lambda's 10 requests a second per environment bind, not its duration
    [concurrency] = [limit for limit in api if limit.name.startswith("Lambda concurrent")]
    assert concurrency.reached_at == 10_000
    assert concurrency.needs[-1] == "10,000 environments"


def test_a_slower_redirect_meets_lambdas_concurrency_sooner():
    slow = copy.deepcopy(BENCH)
    slow["packing"]["sustained"]["billed_ms_mean"] = 500.0
    limits = capacity_plan(slow, cost.function_specs())["HttpApi"]
    [concurrency] = [limit for limit in limits if limit.name.startswith("Lambda concurrent")]
    assert concurrency.reached_at == pytest.approx(2_000)
    assert concurrency.needs == ("500 environments", "5,000 environments", "50,000 environments")


def test_the_cost_page_shows_both_fronts_and_each_capacity_plan_as_make_cost_computes_them(api_lines):
    specs = cost.function_specs()
    page = cost.cost_page(BENCH, specs, cost.priced_tables(BENCH, specs))
    assert fronts_table(api_lines) in page
    for front, plan in capacity_tables(BENCH, specs).items():
        assert f"**{front}**\n\n{plan}" in page
        # what a rate needs beyond a limit is in bold
        assert "**ApiThrottleRate 1,000**" in plan or front != "HTTP API"
    assert "**Target ≤ $0.45 per million redirects at 1,000 a second sustained, analytics\nincluded: met**" in page
