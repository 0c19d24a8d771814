"""`make cost`'s fronts (docs/fronts.md): the HTTP API or an Application Load Balancer before the
functions, side by side at sustained rates, and the monthly volume above which the load balancer
is the cheaper one.

The HTTP API is priced per request (tiered beyond 300 million a month); the load balancer by the
hour, its public IPv4 addresses by the hour, and by the LCU-hour: the largest of its four
dimensions for the traffic (Elastic Load Balancing pricing). Visitors are counted as new
connections each (a click from a page, a mail or an app rarely reuses one), held open for the
load balancer's idle timeout; every redirect is tested against each listener rule of
balancer.yaml before the default action. The rest of a redirect (invocation, duration, click
analytics) is `make cost`'s hit under sustained load, the same behind either front, less the
API's access log line. List prices, on-demand, no free tier: recheck before relying on them.
"""

from dataclasses import dataclass

from tools.developers.cost.deployment import listener_rules
from tools.developers.cost.prices import ACCESS_LOG_ITEM, API_REQUEST_ITEM, PRICES, Line

FRONT_RATES = (10, 100, 1000)
TARGET_PER_MILLION_ON_LOAD_BALANCER = 0.45
HOURS_PER_MONTH = 730
API_TIER_REQUESTS = 300e6  # a month's HTTP API requests at the first tier's price
# USD, list prices: the load balancer's hour and LCU-hour by region, a public IPv4 address-hour.
LOAD_BALANCER_PRICES = {
    "us-east-1": {"hour": 0.0225, "lcu_hour": 0.008},
    "eu-west-1": {"hour": 0.0252, "lcu_hour": 0.008},
}
PUBLIC_IPV4_HOUR = 0.005
# balancer.yaml's two subnets: a node (and a public address) in each zone, more as it scales out.
LOAD_BALANCER_NODES = 2
# What one LCU covers, per dimension (Lambda targets: 0.4 GB an hour, not 1 GB as for instances).
LCU_NEW_CONNECTIONS_PER_SECOND = 25
LCU_ACTIVE_CONNECTIONS_PER_MINUTE = 3000
LCU_LAMBDA_GB_PER_HOUR = 0.4
LCU_RULE_EVALUATIONS_PER_SECOND = 1000
FREE_RULE_EVALUATIONS = 10
IDLE_TIMEOUT_SECONDS = 60  # the load balancer's default: a visitor's connection stays this long
# A browser's GET with its headers, and the redirect's answer (status line, Location, headers).
REQUEST_BYTES = 700
RESPONSE_BYTES = 450


@dataclass(frozen=True)
class Capacity:
    """The LCUs a sustained rate of redirects uses, per dimension; billed: the largest."""

    new_connections: float
    active_connections: float
    processed_bytes: float
    rule_evaluations: float

    @classmethod
    def at(cls, rate: float) -> "Capacity":
        gb_per_hour = rate * 3600 * (REQUEST_BYTES + RESPONSE_BYTES) / 1e9
        charged_rules = max(0, listener_rules() - FREE_RULE_EVALUATIONS)
        return cls(
            new_connections=rate / LCU_NEW_CONNECTIONS_PER_SECOND,
            active_connections=rate * IDLE_TIMEOUT_SECONDS / LCU_ACTIVE_CONNECTIONS_PER_MINUTE,
            processed_bytes=gb_per_hour / LCU_LAMBDA_GB_PER_HOUR,
            rule_evaluations=rate * charged_rules / LCU_RULE_EVALUATIONS_PER_SECOND,
        )

    def dimensions(self) -> dict[str, float]:
        return {
            "new connections": self.new_connections,
            "active connections": self.active_connections,
            "processed bytes": self.processed_bytes,
            "rule evaluations": self.rule_evaluations,
        }

    def billed(self) -> float:
        return max(self.dimensions().values())

    def dominant(self) -> str:
        dimensions = self.dimensions()
        return max(dimensions, key=lambda name: dimensions[name])


def load_balancer_lines(rate: float, region: str = "us-east-1") -> list[Line]:
    """The load balancer's share of one redirect at `rate` redirects a second, sustained."""
    prices = LOAD_BALANCER_PRICES[region]
    hour_share = 1 / (rate * 3600)
    capacity = Capacity.at(rate)
    return [
        Line(f"Load balancer hours ({region}, {rate:g} redirects/s)", hour_share, "hours", prices["hour"]),
        Line(
            f"Public IPv4 addresses ({LOAD_BALANCER_NODES} nodes)",
            LOAD_BALANCER_NODES * hour_share,
            "address-hours",
            PUBLIC_IPV4_HOUR,
        ),
        Line(
            f"LCU ({capacity.billed():.3g} LCU, by {capacity.dominant()}; "
            f"{listener_rules()} rules tested per redirect)",
            capacity.billed() * hour_share,
            "LCU-hours",
            prices["lcu_hour"],
        ),
    ]


def behind_the_load_balancer(api_lines: list[Line], rate: float, region: str = "us-east-1") -> list[Line]:
    """A redirect's lines with the load balancer in the API's place (its own log stays in S3, off)."""
    kept = [line for line in api_lines if line.item not in (API_REQUEST_ITEM, ACCESS_LOG_ITEM)]
    return load_balancer_lines(rate, region) + kept


def api_per_million(api_lines: list[Line], rate: float) -> float:
    """The HTTP API front's price per million over a month at `rate`, its request tiered."""
    per_redirect = sum(line.cost_per_million for line in api_lines) / 1e6
    requests = rate * 3600 * HOURS_PER_MONTH
    beyond = max(0.0, requests - API_TIER_REQUESTS)
    discount = beyond * (PRICES["http_api_request"] - PRICES["http_api_request_over_300m"])
    return (per_redirect * requests - discount) / requests * 1e6


def break_even_per_month(api_lines: list[Line], region: str = "us-east-1") -> float:
    """Redirects a month above which the load balancer costs less than the HTTP API (first tier):
    its fixed hours and addresses over what each redirect saves."""
    prices = LOAD_BALANCER_PRICES[region]
    fixed = (prices["hour"] + LOAD_BALANCER_NODES * PUBLIC_IPV4_HOUR) * HOURS_PER_MONTH
    saved = sum(line.cost_per_million for line in api_lines if line.item in (API_REQUEST_ITEM, ACCESS_LOG_ITEM)) / 1e6
    # LCUs grow with the rate: per redirect, the same at any sustained rate
    lcu_per_redirect = Capacity.at(1).billed() / 3600 * prices["lcu_hour"]
    return fixed / (saved - lcu_per_redirect)


def side_by_side(api_lines: list[Line]) -> list[dict[str, float]]:
    """Per FRONT_RATES: redirects a month and each front's price per million and per month."""
    rows = []
    for rate in FRONT_RATES:
        month = rate * 3600 * HOURS_PER_MONTH
        row = {"rate": float(rate), "month": month, "api": api_per_million(api_lines, rate)}
        for region in LOAD_BALANCER_PRICES:
            lines = behind_the_load_balancer(api_lines, rate, region)
            row[region] = sum(line.cost_per_million for line in lines)
        rows.append(row)
    return rows
