"""The two upstream crawler lists, `crawler-user-agents` and `crawlerdetect`, built for RE2: the same
answers as the packages' own matchers (tests/unit/test_crawler_lists.py compares them on every
corpus), at a few microseconds a string instead of a millisecond.

The packages match with Python's backtracking `re`: crawler-user-agents tries its 1,500 patterns in
chunks of 25, crawlerdetect one alternation of 1,400 after it has removed its exclusions. RE2 runs
each list as one automaton whose cost does not grow with the number of patterns. The few patterns
RE2 cannot run (look-arounds) stay on Python's `re`, as a small alternation of their own.
crawlerdetect's exclusions (52 short patterns, removed with `sub`) stay on `re` too: RE2's `sub`
costs more from Python than the whole search.

Only the lists' data is read (the JSON file, crawlerdetect's pattern modules): neither package's
matcher is imported or compiled.
"""

import json
import re
from collections.abc import Callable
from functools import cache
from importlib.util import find_spec
from pathlib import Path

import re2  # type: ignore[import-untyped]  # google-re2: untyped

# RE2 gives up its fast automaton for a slower one when a pattern's states outgrow this budget;
# crawlerdetect's case-blind alternation needs more than RE2's default 8 MiB.
AUTOMATON_MEMORY = 64 << 20
# What RE2 does not run: look-ahead and look-behind.
LOOK_AROUND = re.compile(r"\(\?<?[=!]")

Search = Callable[[str], bool]


def listed_crawler(agent: str) -> bool:
    """Whether either list takes this User-Agent for a crawler: the answer of
    `crawleruseragents.is_crawler(agent) or CrawlerDetect().is_crawler(agent)`."""
    listed, detected, exclusions = _matchers()
    if listed(agent):
        return True
    remainder = exclusions.sub("", agent.strip())
    return bool(remainder) and detected(remainder)


@cache
def _matchers() -> tuple[Search, Search, re.Pattern[str]]:
    from crawlerdetect.providers.crawlers import data as detected_patterns  # type: ignore[import-untyped]
    from crawlerdetect.providers.exclusions import data as exclusion_patterns  # type: ignore[import-untyped]

    return (
        _alternation(_crawler_user_agents_patterns(), case_sensitive=True),
        _alternation(detected_patterns, case_sensitive=False),
        re.compile("|".join(exclusion_patterns), re.IGNORECASE),
    )


def _crawler_user_agents_patterns() -> list[str]:
    """The patterns of crawler-user-agents' JSON, read without importing the package (its import
    compiles nothing but reads the file too; this is the file alone)."""
    spec = find_spec("crawleruseragents")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("crawler-user-agents is not installed")
    listed = json.loads((Path(spec.submodule_search_locations[0]) / "crawler-user-agents.json").read_text())
    return [crawler["pattern"] for crawler in listed]


def _alternation(patterns: list[str], *, case_sensitive: bool) -> Search:
    """One RE2 automaton of every pattern it runs, and Python's `re` for the rest."""
    fast = [pattern for pattern in patterns if not LOOK_AROUND.search(pattern)]
    slow = [pattern for pattern in patterns if LOOK_AROUND.search(pattern)]
    options = re2.Options()
    options.max_mem = AUTOMATON_MEMORY
    options.case_sensitive = case_sensitive
    automaton = re2.compile("|".join(fast), options)
    if not slow:
        return lambda agent: automaton.search(agent) is not None
    rest = re.compile("|".join(slow), 0 if case_sensitive else re.IGNORECASE)
    return lambda agent: automaton.search(agent) is not None or rest.search(agent) is not None
