"""The fronts' comparison and capacity plan as Markdown tables: what `make cost` prints and
docs/cost.md shows (docs/fronts.md links there)."""

from collections.abc import Callable
from typing import Any

from tools.developers.cost.capacity import CAPACITY_RATES, capacity_plan
from tools.developers.cost.fronts import (
    LOAD_BALANCER_PRICES,
    TARGET_PER_MILLION_ON_LOAD_BALANCER,
    behind_the_load_balancer,
    break_even_per_month,
    side_by_side,
)
from tools.developers.cost.prices import FunctionSpec, Line

FRONT_NAMES = {"HttpApi": "HTTP API", "LoadBalancer": "Application Load Balancer"}


def fronts_table(api_lines: list[Line]) -> str:
    """Both fronts at each sustained rate: per million redirects and per month, analytics included."""
    regions = list(LOAD_BALANCER_PRICES)
    rows = [
        "| redirects/s | a month | HTTP API $/million | HTTP API $/month | "
        + " | ".join(f"load balancer {region} $/million | $/month" for region in regions)
        + " |",
        "| ---: | ---: | ---: | ---: | " + " | ".join("---: | ---:" for _ in regions) + " |",
    ]
    for row in side_by_side(api_lines):
        month = row["month"] / 1e6
        cells = [f"{row['rate']:,.0f}", f"{month:,.0f} M", f"{row['api']:.4f}", f"{row['api'] * month:,.0f}"]
        cells += [f"**{row[region]:.4f}** | {row[region] * month:,.0f}" for region in regions]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def front_figures(api_lines: list[Line]) -> dict[str, float]:
    """The figures the page's text quotes: break-even per region, the load balancer at the highest rate."""
    [*_, busiest] = side_by_side(api_lines)
    figures = {f"break_even_{region}": break_even_per_month(api_lines, region) for region in LOAD_BALANCER_PRICES}
    return figures | {"busiest_rate": busiest["rate"], "busiest_load_balancer": busiest["us-east-1"]}


def verdict_on_load_balancer(price: float) -> str:
    return "met" if price <= TARGET_PER_MILLION_ON_LOAD_BALANCER else "NOT met"


def busiest_lines(api_lines: list[Line]) -> list[Line]:
    """The load balancer's lines at the highest rate compared (its target's)."""
    [*_, busiest] = side_by_side(api_lines)
    return behind_the_load_balancer(api_lines, busiest["rate"])


def capacity_tables(bench: dict[str, Any], specs: dict[str, FunctionSpec]) -> dict[str, str]:
    """Per front, its limits in the order a growing rate meets them, with what each rate needs."""
    tables = {}
    for front, limits in capacity_plan(bench, specs).items():
        rows = [
            "| limit | met at redirects/s | "
            + " | ".join(f"at {rate:,}/s" for rate in CAPACITY_RATES)
            + " | beyond it | costs |",
            "| --- | ---: | " + " | ".join("---" for _ in CAPACITY_RATES) + " | --- | --- |",
        ]
        for limit in limits:
            needs = [
                f"**{need}**" if rate > limit.reached_at else need
                for rate, need in zip(CAPACITY_RATES, limit.needs, strict=True)
            ]
            met_at = "any spike" if not limit.reached_at else f"{limit.reached_at:,.0f}"
            rows.append(f"| {limit.name} | {met_at} | {' | '.join(needs)} | {limit.action} | {limit.cost} |")
        tables[FRONT_NAMES[front]] = "\n".join(rows)
    return tables


def print_front_costs(
    bench: dict[str, Any],
    specs: dict[str, FunctionSpec],
    api_lines: list[Line],
    render: Callable[[str, list[Line], Callable[[str], None]], tuple[float, float]],
) -> dict[str, float]:
    """Print both fronts side by side, the load balancer's lines at the busiest rate, the
    break-even and each front's capacity plan; the figures by name (for the summary line)."""
    figures = front_figures(api_lines)
    print("\nFronts, per million redirects (cache hit, sustained, click analytics included):")
    print(fronts_table(api_lines))
    rate, price = figures["busiest_rate"], figures["busiest_load_balancer"]
    render(f"Per million redirects behind the load balancer at {rate:,.0f}/s", busiest_lines(api_lines), print)
    print(f"  load balancer at {rate:,.0f}/s: ${price:.4f} ({verdict_on_load_balancer(price)} ≤ $0.45)")
    for region in ("us-east-1", "eu-west-1"):
        print(f"  break-even ({region}): {figures[f'break_even_{region}'] / 1e6:,.1f} million redirects a month")
    for front, plan in capacity_tables(bench, specs).items():
        print(f"\nCapacity plan, {front}:\n{plan}")
    return figures
