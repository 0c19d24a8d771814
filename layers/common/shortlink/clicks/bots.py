"""Who made a click: a person, or which kind of bot. What the stats count as `bots` and by class.

Three layers decide, after the response (shortlink.redirect.click_events; never imported before it):

- the two well-kept upstream lists, `crawler-user-agents` and `crawlerdetect`, built for RE2
  (shortlink.clicks.crawler_lists: the lists' own answers, in microseconds);
- our allow-list, parts of people's User-Agents that the lists take for a bot's (Android device
  names and build ids, the Sogou browser, desktop apps), removed before the lists look again;
- our rules for what both lists miss, which also give every bot its class
  (shortlink.clicks.agent_corrections).

A click keeps the classification it was counted with: an upgrade of the lists or of our rules
changes only later clicks. classifier_version() names them all, as the stats show it.
"""

from functools import cache, lru_cache
from typing import Any

from shortlink.clicks.agent_classes import BOT_CLASSES, PERSON
from shortlink.clicks.agent_corrections import compiled_bot_rules, compiled_people_fragments
from shortlink.clicks.crawler_lists import listed_crawler

SCANNER = "scanner"
# The classes agent_class() answers (shortlink.clicks.agent_classes names them).
AGENT_CLASSES = (PERSON, *BOT_CLASSES)
# User-Agents remembered with their answer: an environment sees a few thousand browser builds a day
# (the bench's realistic mix); a string's entry is about 0.5 KiB.
REMEMBERED_AGENTS = 16384
# Bumped whenever agent_corrections changes; the lists' versions are their pinned packages' versions.
OWN_RULES_REVISION = 3
LIST_PACKAGES = ("crawler-user-agents", "crawlerdetect")


@cache
def classifier_version() -> str:
    """Our rules' revision and the lists' versions, e.g. `3+crawler-user-agents-1.67.0+crawlerdetect-0.4.2`.
    Read from the installed packages' metadata, without importing them."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [str(OWN_RULES_REVISION)]
    for package in LIST_PACKAGES:
        try:
            parts.append(f"{package}-{version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package}-missing")
    return "+".join(parts)


def is_bot(user_agent: str) -> bool:
    """Whether a request with this User-Agent comes from a bot (no User-Agent at all: one)."""
    return agent_class(user_agent) != PERSON


@lru_cache(maxsize=REMEMBERED_AGENTS)
def agent_class(user_agent: str) -> str:
    """The class of AGENT_CLASSES of a request with this User-Agent."""
    agent = user_agent.strip()
    if not agent:
        return "library"
    (any_rule, rules), people_fragments = _corrections()
    ruled, listed = any_rule.search(agent) is not None, listed_crawler(agent)
    if not (ruled or listed):  # most people's strings: two searches, no removal
        return PERSON
    without_people = people_fragments.sub("", agent)
    if any_rule.search(without_people) is not None:
        return str(next(name for name, rule in rules if rule.search(without_people) is not None))
    return "crawler" if listed and (without_people == agent or listed_crawler(without_people)) else PERSON


@cache
def _corrections() -> tuple[tuple[Any, tuple[tuple[str, Any], ...]], Any]:
    return compiled_bot_rules(), compiled_people_fragments()


def click_class(user_agent: str, scanner_likely: bool) -> str:
    """The class of a click: its User-Agent's, but `scanner` for a person's User-Agent that came
    with a scanner's signal (shortlink.clicks.scanner_signals: a network, a burst of links)."""
    found = agent_class(user_agent)
    return SCANNER if scanner_likely and found == PERSON else found
