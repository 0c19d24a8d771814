"""`python -m tools.developers.bench edge` (and a part of `make bench`): the edge function's real code
(edge/viewer-request.js, the file as deployed) under Node, over a hit, a miss, the largest entry
the store may hold and a hit whose query is merged: time per request (rounds of events, each
round's mean, p50 and p99 over rounds) and the file's size against CloudFront Functions' 10 KB.

Node's V8 is not CloudFront's JavaScript runtime: these times rank the cases and bound the work;
CloudFront's compute utilization is measured only in CloudFront (its console's test, or the
function's metrics).
"""

import json
import subprocess
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shortlink.domains.model import ShortDomains
from shortlink.edge.entries import MAX_VALUE_BYTES, edge_entry, edge_item
from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from tools.developers.devstack.edge_function import FUNCTION_FILE, NODE_COMMAND, viewer_request_event

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "tools" / "developers" / "bench" / "edge_function.mjs"
EDGE_PAGE = ROOT / "docs" / "edge.md"
TABLE_START = "<!-- edge function table: python -m tools.developers.bench edge -->"
TABLE_END = "<!-- end of the edge function table -->"
CASES = {
    "hit": "a hit: a plain link's redirect",
    "hit_with_query": "a hit whose query is merged (`?utm_source=mail&ref=a1`)",
    "largest_value": "a hit on the largest entry the store holds",
    "miss": "a miss: passed on to the origin",
}
MAX_FUNCTION_BYTES = 10 * 1024  # CloudFront Functions' limit on a function's code
ROUNDS, PER_ROUND = 200, 500


def largest_link(now: datetime) -> Link:
    """A link whose entry is the largest the store may hold (MAX_VALUE_BYTES or just under)."""
    base = Link("big", "https://example.com/", "bench", now, utm=Utm(source="newsletter", campaign="launch"))
    low, high = 0, MAX_VALUE_BYTES
    while low < high:  # the longest path whose entry still fits
        middle = (low + high + 1) // 2
        if edge_entry(replace(base, url=f"https://example.com/{'p' * middle}"), now) is not None:
            low = middle
        else:
            high = middle - 1
    return replace(base, url=f"https://example.com/{'p' * low}")


def follow(code: str, query: str = "") -> dict[str, Any]:
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": f"/{code}", "QUERY_STRING": query, "HTTP_HOST": "s.example"}
    return viewer_request_event(environ, "bench")


def measure_edge_function() -> dict[str, Any]:
    now = datetime.now(UTC)
    plain = Link("abc1234", "https://example.com/landing", "bench", now)
    largest = largest_link(now)
    domains = ShortDomains.parse("s.example,go.example")
    entries = dict(item for link in (plain, largest) if (item := edge_item(link, domains, now)) is not None)
    cases = {
        "hit": follow("abc1234"),
        "miss": follow("zzz9999"),
        "largest_value": follow("big"),
        "hit_with_query": follow("abc1234", "utm_source=mail&ref=a1"),
    }
    payload: dict[str, Any] = {"function": str(FUNCTION_FILE), "entries": entries, "cases": cases}
    payload |= {"rounds": ROUNDS, "per_round": PER_ROUND}
    ran = subprocess.run(
        [*NODE_COMMAND, str(SCRIPT)], input=json.dumps(payload), capture_output=True, text=True, check=True, cwd=ROOT
    )
    return {
        "code_bytes": len(FUNCTION_FILE.read_bytes()),
        "code_limit_bytes": MAX_FUNCTION_BYTES,
        "largest_value_bytes": max(len(value.encode()) for value in entries.values()),
        "value_limit_bytes": MAX_VALUE_BYTES,
        "rounds": ROUNDS,
        "per_round": PER_ROUND,
        "cases": json.loads(ran.stdout),
    }


def edge_function_table(report: dict[str, Any]) -> str:
    """The function's size and its time per request in this run, by case."""
    lines = [
        f"Code: {report['code_bytes']:,} bytes of CloudFront Functions' {report['code_limit_bytes']:,}. "
        f"Largest entry: {report['largest_value_bytes']:,} bytes of the store's {report['value_limit_bytes']:,}. "
        f"Under Node, {report['rounds']} rounds of {report['per_round']} requests each:",
        "",
        "| request | µs per request, p50 of rounds | p99 of rounds | answered at the edge |",
        "| --- | ---: | ---: | --- |",
    ]
    for name, described in CASES.items():
        case = report["cases"][name]
        lines.append(f"| {described} | {case['p50_us']} | {case['p99_us']} | {'yes' if case['answered'] else 'no'} |")
    return "\n".join(lines)


def write_edge_table(report: dict[str, Any], page: Path = EDGE_PAGE) -> Path:
    """Replace the table between the page's markers with this run's."""
    before, _, rest = page.read_text().partition(TABLE_START)
    _, _, after = rest.partition(TABLE_END)
    page.write_text(f"{before}{TABLE_START}\n{edge_function_table(report)}\n{TABLE_END}{after}")
    return page
