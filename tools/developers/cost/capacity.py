"""`make cost`'s capacity plan per front (docs/fronts.md): at 1,000, 10,000 and 100,000 redirects a
second, which limit each front meets first, what to set or request, and what it costs.

From the bench: a redirect's billed milliseconds under sustained load (how long it holds an
environment), clicks per SQS message, ingest's milliseconds and write units per batch. From the
template: the API stage's throttle, the link cache's TTL, the redirect's memory. The quotas are
AWS's documented defaults per account and region (recheck yours in Service Quotas):
- HTTP API: 10,000 requests a second per account and region, adjustable;
- Lambda: 1,000 concurrent executions per account and region, each environment serving at most
  10 requests a second, and a function growing by 1,000 environments every 10 seconds;
- DynamoDB on-demand: a new table serves 12,000 reads and 4,000 writes a second at once, more
  after 30 minutes at twice its peak, or at once with warm throughput; one partition (one
  key) serves 3,000 reads and 1,000 writes a second;
- the SQS event source: up to 1,250 concurrent ingest invocations per queue;
- the load balancer: no request quota, it adds nodes as traffic grows over minutes; a reserved
  minimum of LCUs (LCU reservation) holds capacity for a spike, billed while reserved.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.developers.cost.deployment import api_stage_throttle, cache_ttl_seconds
from tools.developers.cost.fronts import LOAD_BALANCER_PRICES, Capacity
from tools.developers.cost.prices import FunctionSpec

CAPACITY_RATES = (1_000, 10_000, 100_000)
API_ACCOUNT_REQUESTS_PER_SECOND = 10_000
LAMBDA_CONCURRENCY = 1_000
LAMBDA_REQUESTS_PER_ENVIRONMENT = 10
LAMBDA_SCALING_ENVIRONMENTS = 1_000  # per function, every LAMBDA_SCALING_SECONDS
LAMBDA_SCALING_SECONDS = 10
DYNAMODB_INITIAL_READS = 12_000
DYNAMODB_INITIAL_WRITES = 4_000
DYNAMODB_KEY_READS = 3_000
SQS_EVENT_SOURCE_CONCURRENCY = 1_250
# Provisioned concurrency, arm64, per GB-second kept warm (us-east-1).
PROVISIONED_GB_SECOND_ARM64 = 0.0000033334


@dataclass(frozen=True)
class Limit:
    """One limit of a front: the redirects a second at which it is met, what each of
    CAPACITY_RATES needs of it, what to set or request beyond it and what that costs."""

    name: str
    reached_at: float
    needs: tuple[str, ...]
    action: str
    cost: str


def each_rate(describe: Callable[[float], str]) -> tuple[str, ...]:
    return tuple(describe(rate) for rate in CAPACITY_RATES)


def redirect_seconds(bench: dict[str, Any]) -> float:
    """How long a redirect holds its environment: its mean billed time under sustained load."""
    return float(bench["packing"]["sustained"]["billed_ms_mean"]) / 1000


def environments(bench: dict[str, Any], rate: float) -> float:
    """Environments a rate of redirects keeps: its concurrency (rate x billed time), and never
    fewer than Lambda's 10 requests a second per environment allow."""
    return max(rate * redirect_seconds(bench), rate / LAMBDA_REQUESTS_PER_ENVIRONMENT)


def ramp_seconds(needed: float) -> int:
    """How long a function takes from no environment to `needed`: the first 1,000 at once, then
    1,000 more every 10 seconds."""
    return max(0, math.ceil(needed / LAMBDA_SCALING_ENVIRONMENTS) - 1) * LAMBDA_SCALING_SECONDS


def lambda_limits(bench: dict[str, Any], spec: FunctionSpec) -> list[Limit]:
    """The redirect's concurrency quota and scaling rate, and ingest's event source."""
    per_environment = min(1 / redirect_seconds(bench), LAMBDA_REQUESTS_PER_ENVIRONMENT)
    warm = spec.memory_gb * 3600 * PROVISIONED_GB_SECOND_ARM64
    ingest = bench["ingest"]
    ingest_rate = ingest["clicks"] / max(ingest["batches"], 1) / (ingest["ms_per_batch"] / 1000)
    return [
        Limit(
            "Lambda concurrent executions (1,000 per account)",
            LAMBDA_CONCURRENCY * per_environment,
            each_rate(lambda rate: f"{math.ceil(environments(bench, rate)):,} environments"),
            "request the environments the rate needs (Service Quotas)",
            "none",
        ),
        Limit(
            "Lambda scaling (1,000 environments per 10 s per function)",
            LAMBDA_SCALING_ENVIRONMENTS * per_environment,  # beyond it, a spike from cold waits
            each_rate(
                lambda rate: (
                    f"{ramp_seconds(environments(bench, rate))} s from cold, "
                    f"${math.ceil(environments(bench, rate)) * warm:,.2f}/h kept warm"
                )
            ),
            "provisioned concurrency for a launch that starts at full rate",
            f"${warm:.4f} per environment-hour kept warm",
        ),
        Limit(
            "Ingest (SQS event source, 1,250 concurrent invocations)",
            SQS_EVENT_SOURCE_CONCURRENCY * ingest_rate,
            each_rate(lambda rate: f"{math.ceil(rate / ingest_rate):,} invocations"),
            "none: clicks wait in the queue (ClicksQueueAgeAlarm)",
            "none",
        ),
    ]


def dynamodb_limits(bench: dict[str, Any]) -> list[Limit]:
    """A viral link's reads (one key: each environment once per cache TTL), a cold spread of
    links (every follow a read), and the click counters' writes."""
    ttl = cache_ttl_seconds()
    ingest = bench["ingest"]
    write_units = ingest.get("write_units_per_1000_clicks", ingest["dynamodb_writes_per_1000_clicks"]) / 1000
    per_environment = min(1 / redirect_seconds(bench), LAMBDA_REQUESTS_PER_ENVIRONMENT)
    return [
        Limit(
            f"DynamoDB one key's reads (3,000/s; a viral link, once per {ttl} s per environment)",
            DYNAMODB_KEY_READS * ttl * per_environment,
            each_rate(lambda rate: f"{environments(bench, rate) / ttl:,.0f} reads/s"),
            "raise LinkCacheTtlSeconds",
            "none",
        ),
        Limit(
            "DynamoDB reads of a new on-demand table (12,000/s; every follow a cache miss)",
            DYNAMODB_INITIAL_READS,
            each_rate(lambda rate: f"{rate:,.0f} reads/s"),
            "warm throughput (UpdateTable WarmThroughput) a day before a launch",
            "once per increase (DynamoDB pricing)",
        ),
        Limit(
            f"DynamoDB writes of a new on-demand table (4,000/s; {write_units:g} units per click)",
            DYNAMODB_INITIAL_WRITES / write_units,
            each_rate(lambda rate: f"{rate * write_units:,.0f} writes/s"),
            "warm throughput for writes",
            "once per increase (DynamoDB pricing)",
        ),
    ]


def api_limits() -> list[Limit]:
    rate_limit, burst = api_stage_throttle()
    return [
        Limit(
            f"API stage throttle (ApiThrottleRate {rate_limit:,}, burst {burst:,})",
            rate_limit,
            each_rate(lambda rate: f"ApiThrottleRate {rate:,.0f}"),
            "set ApiThrottleRate and ApiThrottleBurst to the rate (sam deploy)",
            "none",
        ),
        Limit(
            "HTTP API requests (10,000/s per account)",
            API_ACCOUNT_REQUESTS_PER_SECOND,
            each_rate(lambda rate: f"{rate:,.0f} requests/s"),
            "request an increase (Service Quotas, API Gateway)",
            "none",
        ),
    ]


def load_balancer_limits() -> list[Limit]:
    lcu_hour = LOAD_BALANCER_PRICES["us-east-1"]["lcu_hour"]
    return [
        Limit(
            "Load balancer scaling (adds nodes over minutes; RejectedConnectionCount when behind)",
            0,
            each_rate(
                lambda rate: f"{Capacity.at(rate).billed():,.0f} LCU, ${Capacity.at(rate).billed() * lcu_hour:,.2f}/h"
            ),
            "reserve the LCUs of the spike (MinimumLoadBalancerCapacity) before it",
            f"${lcu_hour} per reserved LCU-hour",
        )
    ]


def capacity_plan(bench: dict[str, Any], specs: dict[str, FunctionSpec]) -> dict[str, list[Limit]]:
    """Each front's limits in the order a growing rate meets them."""
    shared = lambda_limits(bench, specs["RedirectFunction"]) + dynamodb_limits(bench)
    fronts = {"HttpApi": api_limits() + shared, "LoadBalancer": load_balancer_limits() + shared}
    return {front: sorted(limits, key=lambda limit: limit.reached_at) for front, limits in fronts.items()}
