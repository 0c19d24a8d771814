"""The tables of `make cost` as text and as Markdown, and docs/cost.md made from them."""

from collections.abc import Callable
from typing import Any

from tools.developers.bench.pages import pages
from tools.developers.cost import fronts
from tools.developers.cost.deployment import (
    access_log_bytes,
    access_log_price_per_gb,
    listener_rules,
    redirect_metrics_bytes,
)
from tools.developers.cost.front_tables import (
    busiest_lines,
    capacity_tables,
    front_figures,
    fronts_table,
    verdict_on_load_balancer,
)
from tools.developers.cost.lines import per_region_count, redirect_lines, replication_lines, without_access_logs
from tools.developers.cost.prices import (
    PLATFORM_LOG_BYTES,
    PRICES,
    REGION_COUNTS,
    TARGET_PER_MILLION_REDIRECTS,
    TRAFFIC,
    FunctionSpec,
    Line,
    fixed_floor,
    per_million_redirects,
    totals,
    verdict,
)


def table(title: str, lines: list[Line], write: Callable[[str], None]) -> tuple[float, float]:
    width = max(len(line.item) for line in lines)
    write(f"\n{title}")
    write(f"  {'item':<{width}} {'per request':>12} {'unit':<12} {'unit price $':>12} {'$ per 1M':>9}")
    for line in lines:
        write(
            f"  {line.item:<{width}} {line.quantity:>12.6g} {line.unit:<12} {line.unit_price:>12.6g} "
            f"{line.cost_per_million:>9.4f}"
        )
    total, at_scale = totals(lines)
    write(f"  {'total':<{width}} {'':>12} {'':<12} {'':>12} {total:>9.4f}")
    write(f"  {'total beyond 300 M API requests a month':<{width}} {'':>12} {'':<12} {'':>12} {at_scale:>9.4f}")
    return total, at_scale


def markdown_table(title: str, lines: list[Line], write: Callable[[str], None]) -> tuple[float, float]:
    """The same table in Markdown, as docs/cost.md shows it (`python -m tools.developers.cost --markdown`)."""
    write(f"\n**{title}**\n")
    write("| item | per request | unit | unit price $ | $ per million |")
    write("| --- | ---: | --- | ---: | ---: |")
    for line in lines:
        write(
            f"| {line.item} | {line.quantity:.6g} | {line.unit} | {line.unit_price:.6g} | {line.cost_per_million:.4f} |"
        )
    total, at_scale = totals(lines)
    write(f"| **total** | | | | **{total:.4f}** |")
    write(f"| total beyond 300 M API requests a month ($0.90 per million) | | | | {at_scale:.4f} |")
    return total, at_scale


def markdown_lines(lines: list[Line]) -> str:
    """Lines as the rows of a Markdown table, without a total."""
    rows = ["| item | per request | unit | unit price $ | $ per million |", "| --- | ---: | --- | ---: | ---: |"]
    rows += [
        f"| {line.item} | {line.quantity:.6g} | {line.unit} | {line.unit_price:.6g} | {line.cost_per_million:.4f} |"
        for line in lines
    ]
    return "\n".join(rows)


def cost_page(bench: dict[str, Any], specs: dict[str, FunctionSpec], tables: dict[str, tuple[str, list[Line]]]) -> str:
    """docs/cost.md: the tables as Markdown and the figures the text quotes, all from this run."""
    rendered: list[str] = []
    for title, lines in tables.values():
        table: list[str] = []
        markdown_table(title, lines, table.append)
        rendered.append("\n".join(table).strip("\n"))
    quiet = without_access_logs(bench, specs)
    api_lines = tables["redirect_hit_sustained"][1]
    figures = front_figures(api_lines)
    sqs = {
        traffic: sum(line.cost_per_million for line in lines if line.item.startswith("SQS"))
        for traffic, lines in ((t, tables[f"redirect_hit_{t}"][1]) for t in TRAFFIC)
    }
    return (
        pages()
        .get_template("cost.md.j2")
        .render(
            machine=bench.get("machine", {"cpus": "?"}),
            tables=rendered,
            regions=per_region_count(bench, specs),
            replicated_hit=markdown_lines(
                replication_lines(redirect_lines(bench, specs, "hit", "sustained"), REGION_COUNTS[-1])
            ),
            target=TARGET_PER_MILLION_REDIRECTS,
            totals={name: totals(lines) for name, (_, lines) in tables.items()},
            verdict={"sustained": verdict(totals(tables["redirect_hit_sustained"][1])[0])},
            without_access_logs=quiet[0] if quiet else None,
            read_price=PRICES["dynamodb_read_unit"] * 1e6,
            sustained=bench["packing"]["sustained"],
            idle=bench["packing"]["idle"],
            sqs=sqs,
            fixed=(fixed_floor(PRICES["http_api_request"]), fixed_floor(PRICES["http_api_request_over_300m"])),
            cut={
                "metrics_record": per_million_redirects(redirect_metrics_bytes(), PRICES["logs_ingested_gb"]),
                "platform_lines": per_million_redirects(PLATFORM_LOG_BYTES, PRICES["logs_ingested_gb"]),
                "access_log": per_million_redirects(access_log_bytes(), access_log_price_per_gb()),
                "access_log_standard": per_million_redirects(access_log_bytes(), PRICES["logs_ingested_gb"]),
            },
            front={
                "nodes": fronts.LOAD_BALANCER_NODES,
                "prices": fronts.LOAD_BALANCER_PRICES,
                "ipv4": fronts.PUBLIC_IPV4_HOUR,
                "idle": fronts.IDLE_TIMEOUT_SECONDS,
                "target": fronts.TARGET_PER_MILLION_ON_LOAD_BALANCER,
                "lcu": {
                    "new": fronts.LCU_NEW_CONNECTIONS_PER_SECOND,
                    "active": fronts.LCU_ACTIVE_CONNECTIONS_PER_MINUTE,
                    "gb": fronts.LCU_LAMBDA_GB_PER_HOUR,
                    "rules": fronts.LCU_RULE_EVALUATIONS_PER_SECOND,
                    "free": fronts.FREE_RULE_EVALUATIONS,
                },
                "rules": listener_rules(),
                "table": fronts_table(api_lines),
                "rate": figures["busiest_rate"],
                "price": figures["busiest_load_balancer"],
                "verdict": verdict_on_load_balancer(figures["busiest_load_balancer"]),
                "lines": markdown_lines(busiest_lines(api_lines)),
                "break_even_us": figures["break_even_us-east-1"],
                "break_even_eu": figures["break_even_eu-west-1"],
            },
            capacity=capacity_tables(bench, specs),
        )
    )
