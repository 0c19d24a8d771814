"""The click tables of docs/analytics.md ("What it costs", "What stats read") from a benchmark report:
`python -m tools.developers.bench.click_tables [bench-results/clicks.json]` (default: clicks.json, the
output of `python -m tools.developers.bench clicks`; latest.json of `make bench` works too)."""

import json
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[3] / "bench-results"


def costs_table(clicks: dict[str, Any]) -> list[str]:
    hot, cool = clicks["hot_link"], clicks["cool_links"]
    hot_case = (
        f"hot link: {hot['clicks_per_second']:,} clicks/s for {hot['clicks'] // hot['clicks_per_second']:,} s, "
        f"packs of {hot['clicks_per_pack']}, {hot['packs_per_batch']} packs per batch"
    )
    cool_case = f"{cool['links']:,} cool links, {cool['batches']} batches of one single-click pack per link"
    return [
        "| case | clicks | write units | per 1,000 clicks | target |",
        "| --- | ---: | ---: | ---: | --- |",
        f"| {hot_case} | {hot['clicks']:,} | {hot['write_units']:,} | "
        f"**{hot['write_units_per_1000_clicks']}** | ≤ 20 |",
        f"| {cool_case} | {cool['links'] * cool['batches']:,} | {cool['write_units']:,} | "
        f"**{cool['write_units_per_link_and_batch']}** per link and batch | about 1 per link and batch |",
    ]


def reads_table(clicks: dict[str, Any]) -> list[str]:
    rows = [
        "| stats read (daily series) | Query pages | items | bytes read | p50 | target |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    targets = {30: "≤ 3 pages, ≤ 300 KB, ≤ 250 ms", 400: "≤ 1 MB"}
    for name in ("stats_30_days", "stats_400_days"):
        read = clicks[name]
        rows.append(
            f"| {read['days']} days of the hot link | {read['query_pages']} | {read['items']:,} | "
            f"{read['bytes_read']:,} | {read['p50_ms']:,} ms | {targets[read['days']]} |"
        )
    return rows


def main() -> None:
    path = Path(sys.argv[1]) if sys.argv[1:] else RESULTS / "clicks.json"
    report = json.loads(path.read_text())
    clicks, targets = report["clicks"], report["targets"]
    print("\n".join(costs_table(clicks)), end="\n\n")
    print("\n".join(reads_table(clicks)), end="\n\n")
    missed = [name for name, met in targets.items() if not met]
    print(f"Targets: {'all met' if not missed else 'NOT met: ' + ', '.join(missed)} ({path.name}).")


if __name__ == "__main__":
    main()
