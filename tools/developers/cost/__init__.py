"""`make cost`: what a million redirects and a million creates cost at list prices.

Every line is priced from three sources, shown as it is computed:
- the template: memory, architecture and logging settings of each function, access logging;
- `make bench` (bench-results/latest.json): AWS calls per request, handler and extension
  durations, clicks and bytes per queue message under sustained and idle traffic (the click
  extension packs clicks while busy), clicks per ingest batch, DynamoDB writes per click;
- PRICES below: AWS list prices for us-east-1 (on-demand, no free tier). Each table is priced
  at the first volume tier, and its total is also given beyond 300 million API requests a month,
  where HTTP API requests cost $0.90 a million instead of $1.00 (no other price here has a tier
  before 100 billion requests).

A deployment of several regions (docs/regions.md) pays each write again in every other region (a
replicated write unit there, and the bytes sent); `make cost` prints the prices per million for
one region and for three (REGION_COUNTS).

Durations come from this machine against a local endpoint, so the Lambda duration lines are an
estimate; they are also the smallest lines. Everything else is a count. The tables and the
figures its text quotes are written to docs/cost.md (template: tools/developers/bench/pages/cost.md.j2).
"""

import json
import sys

from tools.developers.cost.deployment import ROOT, access_log_bytes, function_specs, redirect_metrics_bytes
from tools.developers.cost.edge import print_edge_costs
from tools.developers.cost.front_tables import print_front_costs
from tools.developers.cost.lines import (
    create_lines,
    per_region_count,
    priced_tables,
    redirect_lines,
    without_access_logs,
)
from tools.developers.cost.page import cost_page, markdown_table, table
from tools.developers.cost.prices import PRICES, TARGET_PER_MILLION_REDIRECTS, fixed_floor, totals, verdict

BENCH_RESULTS = ROOT / "bench-results" / "latest.json"
PAGE = ROOT / "docs" / "cost.md"


def main() -> None:
    if not BENCH_RESULTS.is_file():
        raise SystemExit("no bench-results/latest.json: run `make bench` first")
    bench = json.loads(BENCH_RESULTS.read_text())
    specs = function_specs()
    render = markdown_table if "--markdown" in sys.argv[1:] else table
    tables = priced_tables(bench, specs)
    results = {name: render(title, lines, print) for name, (title, lines) in tables.items()}
    sustained = bench["packing"]["sustained"]
    print(
        f"\nTarget: ≤ ${TARGET_PER_MILLION_REDIRECTS:.2f} per million redirects including click analytics, "
        f"under sustained load ({sustained['rate_per_second']:g} redirects/s per environment in the bench: "
        f"{sustained['clicks_per_message']:g} clicks per message)."
    )
    for name, (first_tier, at_scale) in results.items():
        if name.startswith("redirect_"):
            print(
                f"  {name}: ${first_tier:.4f} ({verdict(first_tier)}); "
                f"beyond 300 M API requests a month: ${at_scale:.4f} ({verdict(at_scale)})"
            )
    if quiet := without_access_logs(bench, specs):
        first_tier, at_scale = quiet
        print(
            f"  redirect_hit_sustained with AccessLogs=Disabled: ${first_tier:.4f} ({verdict(first_tier)}); "
            f"beyond 300 M API requests a month: ${at_scale:.4f} ({verdict(at_scale)})"
        )
    print(
        "  Fixed part (API request + invocation): "
        f"${fixed_floor(PRICES['http_api_request']):.2f}, "
        f"${fixed_floor(PRICES['http_api_request_over_300m']):.2f} beyond 300 M a month."
    )
    regional = per_region_count(bench, specs)
    print("\nPer million, by the number of regions (every write replicated to the others):")
    for name, by_count in regional.items():
        print("  " + name + ": " + ", ".join(f"N = {n}: ${price:.4f}" for n, price in by_count.items()))
    edge = print_edge_costs(bench, specs, tables["redirect_hit_sustained"][1], render)
    fronts = print_front_costs(bench, specs, tables["redirect_hit_sustained"][1], render)
    from tools.developers.cost import lake  # run alone too: python -m tools.developers.cost.lake

    lake_figures, lake_total = lake.report(print)  # the click lake (docs/click-lake.md): measured apart
    summary = {name: round(first, 4) for name, (first, _) in results.items()}
    summary["click_lake_per_million_clicks"] = round(lake_total, 4)
    summary |= {name: round(price, 4) for name, price in edge.items()}
    summary |= {name: round(figure, 4) for name, figure in fronts.items()}
    summary |= {f"{name}_regions_{n}": round(price, 4) for name, by in regional.items() for n, price in by.items()}
    summary |= {f"{name}_beyond_300m": round(at_scale, 4) for name, (_, at_scale) in results.items()}
    print(json.dumps(summary))
    PAGE.write_text(cost_page(bench, specs, tables))
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
    if (lake_page := ROOT / "docs" / lake.PAGE.name).is_file():
        lake.write_figures(lake_page, lake_figures)


if __name__ == "__main__":
    main()


__all__ = [
    "PRICES",
    "TARGET_PER_MILLION_REDIRECTS",
    "access_log_bytes",
    "cost_page",
    "create_lines",
    "fixed_floor",
    "function_specs",
    "main",
    "per_region_count",
    "priced_tables",
    "redirect_lines",
    "redirect_metrics_bytes",
    "totals",
    "verdict",
]
