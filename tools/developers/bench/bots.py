"""`python -m tools.developers.bench bots` (and a part of `make bench`): the stats' bot classifier
(shortlink.clicks.bots) beside the upstream lists built for RE2, each list alone, ua-parser and the
link rules' quick patterns, on the corpora of tools/developers/bench/agent_corpora.py: the share of each
crawler corpus recognised, the share of people's strings taken for bots, what a User-Agent not
seen before costs (p50 and p99, one call each, CPU time), what one seen before costs, an environment's first
click (a fresh interpreter: the import and one classification of a browser), whether the RE2 build
answers as the lists do on every string, and how much of a realistic mix the cache holds.

The table in docs/analytics.md is written from this JSON (`bots_table`), never by hand.
"""

import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tools.developers.bench.agent_corpora import CRAWLER_CORPORA, PEOPLE_CORPORA, corpora, corpora_versions

ROOT = Path(__file__).resolve().parents[3]
ANALYTICS_PAGE = ROOT / "docs" / "analytics.md"
TABLE_START, TABLE_END = "<!-- bots table: python -m tools.developers.bench bots -->", "<!-- end of the bots table -->"
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
OURS = "ours (shortlink.clicks.bots)"
LISTS_RE2 = "the two lists built for RE2"
DETECTORS = (
    OURS,
    LISTS_RE2,
    "crawler-user-agents alone",
    "crawlerdetect alone",
    "ua-parser alone (ua-parser-rs)",
    "the rules' quick patterns (before)",
)
PACKAGES = ("crawler-user-agents", "crawlerdetect", "google-re2", "ua-parser", "ua-parser-rs", "ua-parser-builtins")
# A realistic mix: clicks drawn from the Matomo browsers and bots with Zipf-like weights (a few
# browser builds make most clicks, a long tail the rest), the same draw every run.
MIX_CLICKS, MIX_EXPONENT, MIX_SEED = 100_000, 1.1, 37
# The strings each detector's p50 and p99 are measured on: every 16th Matomo browser (2,150).
UNSEEN_EVERY = 16


def detector(name: str) -> Callable[[str], bool]:
    """One of DETECTORS, imported now (what an environment's first click pays)."""
    if name == OURS:
        from shortlink.clicks.bots import is_bot

        return is_bot
    if name == LISTS_RE2:
        from shortlink.clicks.crawler_lists import listed_crawler

        return listed_crawler
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
    """The import and one classification of a browser string, in a fresh interpreter (CPU time)."""
    program = (
        "import time\nfrom tools.developers.bench.bots import BROWSER, detector\nstarted = time.thread_time()\n"
        f"detector({name!r})(BROWSER)\nprint((time.thread_time() - started) * 1000)"
    )
    paths = f"{ROOT / 'layers' / 'common'}:{ROOT}"
    ran = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": paths}
    )
    return round(float(ran.stdout.strip().splitlines()[-1]), 1)


def unseen_costs_us(detect: Callable[[str], bool], agents: tuple[str, ...]) -> tuple[float, float]:
    """p50 and p99 of one call each on strings the detector has not seen (our cache emptied), in
    CPU time: what the call itself costs, without the waits of a machine shared with other work."""
    from shortlink.clicks.bots import agent_class

    agent_class.cache_clear()  # is_bot's memory
    costs = []
    for agent in agents:
        started = time.thread_time_ns()
        detect(agent)
        costs.append((time.thread_time_ns() - started) / 1000)
    cuts = statistics.quantiles(costs, n=100)
    return round(cuts[49], 1), round(cuts[98], 1)


def measure_detector(name: str, texts: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    detect = detector(name)
    detect(BROWSER)  # warm: the per-click figures are an environment's later clicks
    shares, costs, answers = {}, {}, {}
    for corpus, agents in texts.items():
        started = time.perf_counter()
        flagged = [detect(agent) for agent in agents]
        costs[corpus] = round((time.perf_counter() - started) / len(agents) * 1e6, 1)
        shares[corpus] = round(100 * sum(flagged) / len(agents), 2)
        answers[corpus] = flagged
    browsers = texts["browsers"]
    for agent in browsers:
        detect(agent)
    started = time.thread_time()
    for agent in browsers:  # again: what a User-Agent seen before costs
        detect(agent)
    again = round((time.thread_time() - started) / len(browsers) * 1e6, 1)
    p50, p99 = unseen_costs_us(detect, texts["Matomo browsers"][::UNSEEN_EVERY])
    return {
        "flagged_percent": shares,
        "us_per_click": costs,
        "us_per_click_seen_before": again,
        "us_unseen_p50": p50,
        "us_unseen_p99": p99,
        "first_click_ms": first_click_ms(name),
        "answers": answers,
    }


def realistic_mix_hit_percent(texts: dict[str, tuple[str, ...]]) -> float:
    """The share of a realistic mix of clicks our classifier answers from its cache."""
    from shortlink.clicks.bots import agent_class

    agents = list(texts["Matomo browsers"] + texts["Matomo bots"])
    draw = random.Random(MIX_SEED)  # noqa: S311  # a repeatable draw, not a secret
    draw.shuffle(agents)
    weights = [1 / (rank + 1) ** MIX_EXPONENT for rank in range(len(agents))]
    agent_class.cache_clear()
    for agent in draw.choices(agents, weights, k=MIX_CLICKS):
        agent_class(agent)
    info = agent_class.cache_info()
    return round(100 * info.hits / (info.hits + info.misses), 1)


def measure_bots() -> dict[str, Any]:
    texts = corpora()
    measured = {name: measure_detector(name, texts) for name in DETECTORS}
    answers = {name: result.pop("answers") for name, result in measured.items()}
    disagreements = sum(
        1
        for corpus in texts
        for built, listed, detected in zip(
            answers[LISTS_RE2][corpus],
            answers["crawler-user-agents alone"][corpus],
            answers["crawlerdetect alone"][corpus],
            strict=True,
        )
        if built != (listed or detected)
    )
    report: dict[str, Any] = {
        "corpora": {corpus: len(agents) for corpus, agents in texts.items()},
        "corpora_versions": corpora_versions(),
        "packages": {package: version(package) for package in PACKAGES},
        "detectors": measured,
        "re2_build_disagreements": disagreements,
        "cache_hit_percent_realistic_mix": realistic_mix_hit_percent(texts),
    }
    return {**report, "targets": bots_targets(report)}


def bots_targets(report: dict[str, Any]) -> dict[str, bool]:
    """Issue 37's: the corpora targets, the costs, and the RE2 build answering as the lists do."""
    ours = report["detectors"][OURS]
    shares = ours["flagged_percent"]
    return {
        "bots_each_crawler_corpus_ge_97_percent": all(shares[corpus] >= 97 for corpus in CRAWLER_CORPORA),
        "bots_browsers_le_1_percent": shares["browsers"] <= 1,
        "bots_matomo_browsers_le_0_3_percent": shares["Matomo browsers"] <= 0.3,
        "bots_peoples_apps_le_1_percent": shares["Matomo people's apps"] <= 1,
        "bots_unseen_p50_le_100_us": ours["us_unseen_p50"] <= 100,
        "bots_unseen_p99_le_1000_us": ours["us_unseen_p99"] <= 1000,
        "bots_first_click_le_80_ms": ours["first_click_ms"] <= 80,
        "bots_re2_build_answers_as_the_lists": report["re2_build_disagreements"] == 0,
    }


def bots_table(report: dict[str, Any]) -> str:
    """The side-by-side table of a run: recognised crawlers, people taken for bots, costs."""
    sizes = report["corpora"]
    columns = [f"{corpus} ({sizes[corpus]:,}) recognised" for corpus in CRAWLER_CORPORA]
    columns += [f"{corpus} ({sizes[corpus]:,}) taken for bots" for corpus in PEOPLE_CORPORA]
    columns += ["µs a new string, p50", "µs a new string, p99", "µs a string seen before", "first click (ms)"]
    lines = [f"| classifier | {' | '.join(columns)} |", "| --- |" + " ---: |" * len(columns)]
    for name, measured in report["detectors"].items():
        shares = measured["flagged_percent"]
        cells = [f"{shares[corpus]} %" for corpus in CRAWLER_CORPORA + PEOPLE_CORPORA]
        cells += [
            f"{measured['us_unseen_p50']:,}",
            f"{measured['us_unseen_p99']:,}",
            f"{measured['us_per_click_seen_before']:,}",
            f"{measured['first_click_ms']:,}",
        ]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    versions = ", ".join(f"{package} {number}" for package, number in report["corpora_versions"].items())
    lines.append(f"\nThe corpora and the lists alone come from these packages: {versions}.")
    return "\n".join(lines)


def write_analytics_table(report: dict[str, Any], page: Path = ANALYTICS_PAGE) -> Path:
    """Replace the table between the page's markers with this run's."""
    text = page.read_text()
    before, _, rest = text.partition(TABLE_START)
    _, _, after = rest.partition(TABLE_END)
    page.write_text(f"{before}{TABLE_START}\n{bots_table(report)}\n{TABLE_END}{after}")
    return page
