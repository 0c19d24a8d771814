"""`python -m tools.developers.bench bots` (and a part of `make bench`): the stats' bot classifier
(shortlink.clicks.bots) beside each library alone and the link rules' quick patterns, on the
public corpora of tests/data/user_agents: the share of each crawler corpus recognised, the share
of real browsers taken for bots, the cost per click (warm) and at an environment's first click
(a fresh interpreter: the import and one classification of a browser, which walks every list).

The table in docs/analytics.md is written from this JSON (`bots_table`), never by hand.
"""

import json
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
CORPORA = ROOT / "tests" / "data" / "user_agents"
ANALYTICS_PAGE = ROOT / "docs" / "analytics.md"
TABLE_START, TABLE_END = "<!-- bots table: python -m tools.developers.bench bots -->", "<!-- end of the bots table -->"
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
OURS = "ours (shortlink.clicks.bots)"
DETECTORS = (
    OURS,
    "crawler-user-agents alone",
    "crawlerdetect alone",
    "ua-parser alone (ua-parser-rs)",
    "the rules' quick patterns (before)",
)
PACKAGES = ("crawler-user-agents", "crawlerdetect", "ua-parser", "ua-parser-rs", "ua-parser-builtins")


def corpora() -> dict[str, list[str]]:
    listed = json.loads(files("crawleruseragents").joinpath("crawler-user-agents.json").read_text())
    return {
        "crawler-user-agents examples": [example for crawler in listed for example in crawler.get("instances", [])],
        "crawlerdetect crawlers": (CORPORA / "crawlers-crawlerdetect.txt").read_text().splitlines(),
        "browsers": (CORPORA / "browsers.txt").read_text().splitlines(),
    }


def detector(name: str) -> Callable[[str], bool]:
    """One of DETECTORS, imported now (what an environment's first click pays)."""
    if name == OURS:
        from shortlink.clicks.bots import is_bot

        return is_bot
    if name == "crawler-user-agents alone":
        import crawleruseragents  # type: ignore[import-untyped]

        return lambda agent: bool(crawleruseragents.is_crawler(agent))
    if name == "crawlerdetect alone":
        from crawlerdetect import CrawlerDetect  # type: ignore[import-untyped]

        crawler_detect = CrawlerDetect()
        return lambda agent: bool(crawler_detect.is_crawler(agent))
    if name == "ua-parser alone (ua-parser-rs)":
        from ua_parser import parse_device

        return lambda agent: getattr(parse_device(agent), "family", "") == "Spider"
    from shortlink.rules.user_agents import is_bot as quick_patterns

    return quick_patterns


def first_click_ms(name: str) -> float:
    """The import and one classification of a browser string, in a fresh interpreter."""
    program = (
        "import time\nfrom tools.developers.bench.bots import BROWSER, detector\nstarted = time.perf_counter()\n"
        f"detector({name!r})(BROWSER)\nprint((time.perf_counter() - started) * 1000)"
    )
    paths = f"{ROOT / 'layers' / 'common'}:{ROOT}"
    ran = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": paths}
    )
    return round(float(ran.stdout.strip()), 1)


def measure_detector(name: str, texts: dict[str, list[str]]) -> dict[str, Any]:
    detect = detector(name)
    detect(BROWSER)  # warm: the per-click figures are an environment's later clicks
    shares, costs = {}, {}
    for corpus, agents in texts.items():
        started = time.perf_counter()
        flagged = sum(1 for agent in agents if detect(agent))
        costs[corpus] = round((time.perf_counter() - started) / len(agents) * 1e6, 1)
        shares[corpus] = round(100 * flagged / len(agents), 1)
    browsers = texts["browsers"]
    started = time.perf_counter()
    for agent in browsers:  # again: what a User-Agent seen before costs
        detect(agent)
    again = round((time.perf_counter() - started) / len(browsers) * 1e6, 1)
    return {
        "flagged_percent": shares,
        "us_per_click": costs,
        "us_per_click_seen_before": again,
        "first_click_ms": first_click_ms(name),
    }


def measure_bots() -> dict[str, Any]:
    texts = corpora()
    report: dict[str, Any] = {
        "corpora": {corpus: len(agents) for corpus, agents in texts.items()},
        "packages": {package: version(package) for package in PACKAGES},
        "detectors": {name: measure_detector(name, texts) for name in DETECTORS},
    }
    return {**report, "targets": bots_targets(report)}


def bots_targets(report: dict[str, Any]) -> dict[str, bool]:
    """Issue 26's: our classifier at least as good as each library alone on every corpus."""
    shares = {name: measured["flagged_percent"] for name, measured in report["detectors"].items()}
    ours, libraries = shares[OURS], [shares[name] for name in DETECTORS[1:4]]
    crawlers = [corpus for corpus in report["corpora"] if corpus != "browsers"]
    return {
        "bots_crawler_user_agents_examples_ge_97_percent": ours["crawler-user-agents examples"] >= 97,
        "bots_browsers_le_1_percent": ours["browsers"] <= 1,
        "bots_ge_each_library_on_each_crawler_corpus": all(
            ours[corpus] >= library[corpus] for corpus in crawlers for library in libraries
        ),
    }


def bots_table(report: dict[str, Any]) -> str:
    """The side-by-side table of a run: recognised crawlers, browsers taken for bots, costs."""
    sizes = report["corpora"]
    lines = [
        f"| classifier | crawler-user-agents examples ({sizes['crawler-user-agents examples']:,}) recognised "
        f"| crawlerdetect crawlers ({sizes['crawlerdetect crawlers']:,}) recognised "
        f"| browsers ({sizes['browsers']:,}) taken for bots | µs per click (a new browser) "
        "| µs per click (a browser seen before) | first click (ms) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, measured in report["detectors"].items():
        shares, costs = measured["flagged_percent"], measured["us_per_click"]
        lines.append(
            f"| {name} | {shares['crawler-user-agents examples']} % | {shares['crawlerdetect crawlers']} % "
            f"| {shares['browsers']} % | {costs['browsers']:,} | {measured['us_per_click_seen_before']:,} "
            f"| {measured['first_click_ms']:,} |"
        )
    return "\n".join(lines)


def write_analytics_table(report: dict[str, Any], page: Path = ANALYTICS_PAGE) -> Path:
    """Replace the table between the page's markers with this run's."""
    text = page.read_text()
    before, _, rest = text.partition(TABLE_START)
    _, _, after = rest.partition(TABLE_END)
    page.write_text(f"{before}{TABLE_START}\n{bots_table(report)}\n{TABLE_END}{after}")
    return page
