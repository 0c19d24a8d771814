"""The stats' reading of devices, browsers and OS (shortlink.clicks.devices: ua-parser) beside the
link rules' quick patterns it replaced there (shortlink.rules.user_agents), in the `bots` part of
`make bench`: the share of equal answers per dimension on each people's corpus of
tools/developers/bench/agent_corpora.py, what a User-Agent not seen before costs (p50 and p99,
CPU time), and an environment's first click (a fresh interpreter: the import and one reading).

The table in docs/analytics.md is written from this JSON (`devices_table`), never by hand.
"""

import statistics
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tools.developers.bench.agent_corpora import PEOPLE_CORPORA, corpora
from tools.developers.bench.pages import write_between_markers

ROOT = Path(__file__).resolve().parents[3]
ANALYTICS_PAGE = ROOT / "docs" / "analytics.md"
TABLE_START = "<!-- devices table: python -m tools.developers.bench bots -->"
TABLE_END = "<!-- end of the devices table -->"
DIMENSIONS = ("device", "browser", "os")
PACKAGES = ("ua-parser", "ua-parser-rs", "ua-parser-builtins")
# The strings the p50 and p99 are measured on: every 16th Matomo browser (2,150), as the bots' are.
UNSEEN_EVERY = 16
FIRST_CLICK = (
    "import time\nstarted = time.thread_time()\nfrom shortlink.clicks.devices import client_of\n"
    "client_of('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Safari/537.36', {})\nprint((time.thread_time() - started) * 1000)"
)


def agreement_percent(agents: tuple[str, ...]) -> dict[str, float]:
    """The share of `agents` on which ua-parser's reading equals the rules' patterns', per dimension."""
    from shortlink.clicks.devices import client_of
    from shortlink.rules.user_agents import classify

    equal = dict.fromkeys(DIMENSIONS, 0)
    for agent in agents:
        before, now = classify(agent, {}), client_of(agent, {})
        # The rules' patterns call a bot's device `bot`; the stats set it from the bot classifier.
        equal["device"] += before.device in (now.device, "bot")
        equal["browser"] += before.browser == now.browser
        equal["os"] += before.os == now.os
    return {dimension: round(100 * count / len(agents), 2) for dimension, count in equal.items()}


def unseen_costs_us(agents: tuple[str, ...]) -> tuple[float, float]:
    """p50 and p99 of one reading each of strings not seen before (its memory emptied), in CPU time."""
    from shortlink.clicks import devices

    devices.client_of(agents[0], {})  # the parser built: later clicks' cost
    devices._read.cache_clear()  # the memory of strings seen, emptied for the measure
    costs = []
    for agent in agents:
        started = time.thread_time_ns()
        devices.client_of(agent, {})
        costs.append((time.thread_time_ns() - started) / 1000)
    cuts = statistics.quantiles(costs, n=100)
    return round(cuts[49], 1), round(cuts[98], 1)


def first_click_ms() -> float:
    """The import and one reading of a browser string in a fresh interpreter (CPU time)."""
    paths = f"{ROOT / 'layers' / 'common'}:{ROOT}"
    command = [sys.executable, "-c", FIRST_CLICK]
    ran = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": paths})
    return round(float(ran.stdout.strip().splitlines()[-1]), 1)


def measure_devices() -> dict[str, Any]:
    texts = corpora()
    p50, p99 = unseen_costs_us(texts["Matomo browsers"][::UNSEEN_EVERY])
    return {
        "packages": {package: version(package) for package in PACKAGES},
        "corpora": {corpus: len(texts[corpus]) for corpus in PEOPLE_CORPORA},
        "agreement_percent": {corpus: agreement_percent(texts[corpus]) for corpus in PEOPLE_CORPORA},
        "us_unseen_p50": p50,
        "us_unseen_p99": p99,
        "first_click_ms": first_click_ms(),
    }


def devices_table(report: dict[str, Any]) -> str:
    """Agreement with the rules' patterns per corpus and dimension, then the costs."""
    lines = ["| corpus | device | browser | OS |", "| --- | ---: | ---: | ---: |"]
    for corpus, shares in report["agreement_percent"].items():
        cells = " | ".join(f"{shares[dimension]} %" for dimension in DIMENSIONS)
        lines.append(f"| {corpus} ({report['corpora'][corpus]:,}) | {cells} |")
    packages = ", ".join(f"{package} {release}" for package, release in report["packages"].items())
    lines += [
        "",
        f"An unseen User-Agent: {report['us_unseen_p50']:,} µs p50, {report['us_unseen_p99']:,} µs p99; "
        f"an environment's first click: {report['first_click_ms']:,} ms ({packages}).",
    ]
    return "\n".join(lines)


def write_devices_table(report: dict[str, Any], page: Path = ANALYTICS_PAGE) -> Path:
    """Replace the table between the page's markers with this run's."""
    return write_between_markers(page, TABLE_START, TABLE_END, devices_table(report))
