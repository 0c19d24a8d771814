"""Whether a click was made by a bot rather than a person: what the stats count as `bots`.

Two well-kept lists decide, and our own rules add only what both miss:

- `crawler-user-agents` (the list Kutt's and many others' detectors build on), case-sensitive as
  its examples are written;
- `crawlerdetect` (the Python port of the CrawlerDetect library Shlink uses), which also knows
  HTTP libraries, feed readers and monitors;
- OWN_PATTERN: link previewers, HTTP clients, health checks and email link scanners neither names.

Each list alone misses much of the other's corpus; together they recognise both whole (measured
by tests/unit/test_bots.py and `make bench`'s `bots` run). Both cost tens of milliseconds to load
and a fraction of a millisecond per string, so the redirect classifies after its response
(shortlink.redirect.click_events) and never imports this module before it. The link rules' own
device matching (shortlink.rules.user_agents) stays a few microsecond-cheap patterns.

A click keeps the classification it was counted with: an upgrade of the lists or of our rules
changes only later clicks. CLASSIFIER_VERSION names them all, as the stats show it.
"""

import re
from functools import cache, lru_cache
from typing import Any

# User-Agents remembered with their answer: one browser version makes many clicks, and a string
# seen before costs a dictionary lookup instead of the lists' hundreds of patterns.
REMEMBERED_AGENTS = 4096
# Bumped whenever OWN_PATTERN changes; the lists' versions are their pinned packages' versions.
OWN_RULES_REVISION = 1
LIST_PACKAGES = ("crawler-user-agents", "crawlerdetect")
# What the lists miss (measured against tests/data/user_agents): link previewers, HTTP clients,
# load testers and scanners, email link scanners. Tokens that no browser's User-Agent carries.
OWN_PATTERN = re.compile(
    r"cardyb|bluesky|braze sender|arachni|proofpoint|mimecast|barracuda|safelinks|"
    r"httpie/|undici|postmanruntime|insomnia/|k6/|locust/|hey/|vegeta|wrk/|"
    r"microsoftpreview|skypeuripreview|google-pagerenderer|googleimageproxy",
    re.IGNORECASE,
)


@cache
def classifier_version() -> str:
    """Our rules' revision and the lists' versions, e.g. `1+crawler-user-agents-1.67.0+crawlerdetect-0.4.2`.
    Read from the installed packages' metadata, without importing them."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [str(OWN_RULES_REVISION)]
    for package in LIST_PACKAGES:
        try:
            parts.append(f"{package}-{version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package}-missing")
    return "+".join(parts)


@lru_cache(maxsize=REMEMBERED_AGENTS)
def is_bot(user_agent: str) -> bool:
    """Whether a request with this User-Agent comes from a bot (no User-Agent at all: one)."""
    agent = user_agent.strip()
    if not agent:
        return True
    return OWN_PATTERN.search(agent) is not None or _listed_crawler(agent) or _detected_crawler(agent)


def _listed_crawler(agent: str) -> bool:
    return bool(_crawler_user_agents().is_crawler(agent))


def _detected_crawler(agent: str) -> bool:
    return bool(_crawler_detect().is_crawler(agent))


@cache
def _crawler_user_agents() -> Any:
    import crawleruseragents  # type: ignore[import-untyped]  # untyped; ~15 ms (its JSON)

    return crawleruseragents


@cache
def _crawler_detect() -> Any:
    from crawlerdetect import CrawlerDetect  # type: ignore[import-untyped]  # untyped

    return CrawlerDetect()
