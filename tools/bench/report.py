"""The bench's report: the targets each run is held to, and the JSON it writes."""

import json
from typing import Any

from tools.bench.harness import ROOT, progress


def click_targets(clicks: dict[str, Any]) -> dict[str, bool]:
    month, year = clicks["stats_30_days"], clicks["stats_400_days"]
    return {
        "hot_link_le_20_write_units_per_1000_clicks": clicks["hot_link"]["write_units_per_1000_clicks"] <= 20,
        # "at most about one unit per link and batch"
        "cool_links_le_1_1_write_units_per_link_and_batch": clicks["cool_links"]["write_units_per_link_and_batch"]
        <= 1.1,
        "stats_30_days_le_3_pages": month["query_pages"] <= 3,
        "stats_30_days_le_300_kb": month["bytes_read"] <= 300 * 1024,
        "stats_30_days_p50_le_250_ms": month["p50_ms"] <= 250,
        "stats_400_days_le_1_mb": year["bytes_read"] <= 1024 * 1024,
    }


def targets(report: dict[str, Any]) -> dict[str, bool]:
    """Whether the run met each target of the redirect, cold start, clicks and ingest."""
    redirect = report["redirect"]
    hit_p50 = redirect["ours_hit"]["p50_us"]
    return {
        "hit_p50_le_2x_powertools_floor": hit_p50 <= 2 * redirect["floor_powertools_logger_metrics"]["p50_us"],
        "hit_p50_le_2x_own_stack_floor": hit_p50 <= 2 * redirect["floor_own_stack"]["p50_us"],
        "hit_p50_le_250us": hit_p50 <= 250,
        "hit_p50_20x_faster_than_naive": redirect["naive"]["p50_us"] >= 20 * hit_p50,
        "cold_start_le_0_9x_naive": report["cold_start"]["ratio_ours_to_naive"] <= 0.9,
        **click_targets(report["clicks"]),
        "twenty_links_le_24_write_units_per_1000_clicks": report["ingest"]["write_units_per_1000_clicks"] <= 24,
    }


def write_report(report: dict[str, Any], stream: Any, name: str) -> None:
    output = json.dumps(report, indent=2)
    results = ROOT / "bench-results"
    results.mkdir(exist_ok=True)
    (results / name).write_text(output + "\n")
    print(output, file=stream)
    progress("done")
