"""The stats' bot classes against public corpora nobody here wrote (tools/developers/bench/agent_corpora.py):
issue 37's targets, and every string a list flags that we do not is one of our corrections'."""

import re
from importlib.metadata import version

import crawleruseragents  # type: ignore[import-untyped]
import pytest
from crawlerdetect import CrawlerDetect  # type: ignore[import-untyped]

from shortlink.clicks.agent_corrections import PEOPLE_FRAGMENTS
from shortlink.clicks.bots import AGENT_CLASSES, agent_class, classifier_version, is_bot
from tools.developers.bench.agent_corpora import CRAWLER_CORPORA, corpora

LISTS = {"crawler-user-agents": crawleruseragents.is_crawler, "crawlerdetect": CrawlerDetect().is_crawler}
ALLOWED = re.compile("|".join(PEOPLE_FRAGMENTS))


def share(detect, agents) -> float:
    return sum(1 for agent in agents if detect(agent)) / len(agents)


def test_the_corpora_are_large_enough_to_measure():
    sizes = {name: len(agents) for name, agents in corpora().items()}
    least = {"crawler-user-agents examples": 2000, "crawlerdetect crawlers": 3000, "Matomo bots": 1300}
    least |= {"browsers": 1000, "Matomo browsers": 34000, "Matomo mobile apps": 1900, "Matomo people's apps": 1350}
    assert {name: sizes[name] >= size for name, size in least.items()} == dict.fromkeys(least, True)


@pytest.mark.parametrize("corpus", CRAWLER_CORPORA)
def test_at_least_97_percent_of_each_crawler_corpus_are_bots(corpus):
    assert share(is_bot, corpora()[corpus]) >= 0.97


@pytest.mark.parametrize(("corpus", "most"), [("browsers", 0.01), ("Matomo browsers", 0.003)])
def test_few_browsers_are_taken_for_bots(corpus, most):
    assert share(is_bot, corpora()[corpus]) <= most


def test_at_most_1_percent_of_peoples_apps_are_taken_for_bots():
    # Measured 0.86 %: what is left is Windows' and utilities' own updaters, git, a receiver's
    # client, a bare "+Simple Browser" and a WhatsApp fetch that says only its device.
    assert share(is_bot, corpora()["Matomo people's apps"]) <= 0.01


@pytest.mark.parametrize("corpus", CRAWLER_CORPORA)
def test_what_a_list_recognises_and_we_do_not_is_a_correction_of_ours(corpus):
    # Given a crawler corpus, when a list flags a string that we take for a person's
    missed = [
        agent for agent in corpora()[corpus] if not is_bot(agent) and any(detect(agent) for detect in LISTS.values())
    ]
    # Then the allow-list says why: a part of it is a person's
    assert [agent for agent in missed if not ALLOWED.search(agent)] == []


def test_every_class_is_one_of_the_stats_classes():
    agents = [agent for name in corpora() for agent in corpora()[name][::50]]
    assert {agent_class(agent) for agent in agents} <= set(AGENT_CLASSES)


def test_the_classifier_version_names_our_rules_and_each_lists_version():
    assert classifier_version() == (
        f"3+crawler-user-agents-{version('crawler-user-agents')}+crawlerdetect-{version('crawlerdetect')}"
    )
