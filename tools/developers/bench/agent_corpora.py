"""The User-Agent corpora the bot classifier is measured on (tests/unit/test_bots.py and
`python -m tools.developers.bench bots`), each read from where it is published:

- `crawler-user-agents examples`: the example strings inside the crawler-user-agents package;
- `crawlerdetect crawlers` and `browsers`: tests/data/user_agents (its README says where from);
- `Matomo bots`, `Matomo browsers`, `Matomo mobile apps`: Matomo device-detector's test fixtures
  as the `device-detector` package ships them (a development dependency; the fixtures are
  Matomo's, LGPL-3.0-or-later, read from the installed package, never copied here). Browsers and
  mobile apps are the distinct strings of every fixture whose client type says so.
- `Matomo people's apps`: the mobile apps less podcast, radio and music players, feed readers and
  download managers, which fetch media and feeds on their own (the issue counts them as bots):
  less those of Matomo's own podcast-client fixtures (`podcasting.yml`), and those whose string
  names such a player (FETCHING_APPS).
"""

import json
import re
from functools import cache
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml_rs  # device-detector's YAML reader

ROOT = Path(__file__).resolve().parents[3]
CORPORA = ROOT / "tests" / "data" / "user_agents"
# Mobile apps that fetch on their own: media and feed players, download managers.
FETCHING_APPS = re.compile(
    r"pod|cast|feed|rss|radio|tuner|music|audio|downloadmanager|downloader|victorreader|player", re.IGNORECASE
)
CRAWLER_CORPORA = ("crawler-user-agents examples", "crawlerdetect crawlers", "Matomo bots")
PEOPLE_CORPORA = ("browsers", "Matomo browsers", "Matomo people's apps")


# Matomo's fixtures of the clients podcast hosts see: players that fetch episodes on their own.
PODCAST_FIXTURES = "podcasting.yml"


@cache
def corpora() -> dict[str, tuple[str, ...]]:
    """Every corpus by name, crawlers first."""
    listed = json.loads(files("crawleruseragents").joinpath("crawler-user-agents.json").read_text())
    examples = tuple(example for crawler in listed for example in crawler.get("instances", []))
    matomo = matomo_fixtures()
    podcast_clients = set(matomo["podcast client"])
    return {
        "crawler-user-agents examples": examples,
        "crawlerdetect crawlers": tuple((CORPORA / "crawlers-crawlerdetect.txt").read_text().splitlines()),
        "Matomo bots": matomo["bot"],
        "browsers": tuple((CORPORA / "browsers.txt").read_text().splitlines()),
        "Matomo browsers": matomo["browser"],
        "Matomo mobile apps": matomo["mobile app"],
        "Matomo people's apps": tuple(
            agent for agent in matomo["mobile app"] if agent not in podcast_clients and not FETCHING_APPS.search(agent)
        ),
    }


def matomo_fixtures() -> dict[str, tuple[str, ...]]:
    """The distinct User-Agents of device-detector's upstream fixtures by client type (`bot`: bots.yml;
    `podcast client`: every one of PODCAST_FIXTURES, whatever its type)."""
    folder = Path(str(files("device_detector"))) / "tests" / "fixtures" / "upstream"
    found: dict[str, set[str]] = {"bot": set(), "browser": set(), "mobile app": set(), "podcast client": set()}
    for fixture in sorted(folder.glob("*.yml")):
        cases: list[dict[str, Any]] = yaml_rs.loads(fixture.read_text()) or []  # type: ignore[assignment]
        for case in cases:
            kind = "bot" if fixture.name == "bots.yml" else (case.get("client") or {}).get("type")
            if kind in found:
                found[kind].add(case["user_agent"])
            if fixture.name == PODCAST_FIXTURES:
                found["podcast client"].add(case["user_agent"])
    return {kind: tuple(sorted(agents)) for kind, agents in found.items()}


def corpora_versions() -> dict[str, str]:
    """The packages the corpora come from, with their versions."""
    return {package: version(package) for package in ("crawler-user-agents", "crawlerdetect", "device-detector")}
