"""The stats' bot flag against public corpora nobody here wrote (tests/data/user_agents/README.md):
at least as good as the best list alone on each, and the bots that both lists miss."""

import json
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path

import crawleruseragents  # type: ignore[import-untyped]
import pytest
from crawlerdetect import CrawlerDetect  # type: ignore[import-untyped]

from shortlink.clicks.bots import classifier_version, is_bot

CORPORA = Path(__file__).resolve().parents[1] / "data" / "user_agents"


def crawler_user_agents_examples() -> list[str]:
    """The example strings shipped inside the crawler-user-agents package."""
    listed = json.loads(files("crawleruseragents").joinpath("crawler-user-agents.json").read_text())
    return [example for crawler in listed for example in crawler.get("instances", [])]


def lines(name: str) -> list[str]:
    return (CORPORA / name).read_text().splitlines()


def share(detect, corpus: list[str]) -> float:
    return sum(1 for agent in corpus if detect(agent)) / len(corpus)


LISTS = {"crawler-user-agents": crawleruseragents.is_crawler, "crawlerdetect": CrawlerDetect().is_crawler}


def test_the_corpora_are_large_enough_to_measure():
    assert len(crawler_user_agents_examples()) >= 2000
    assert len(lines("crawlers-crawlerdetect.txt")) >= 3000
    assert len(lines("browsers.txt")) >= 500


def test_at_least_97_percent_of_the_crawler_user_agents_examples_are_bots():
    assert share(is_bot, crawler_user_agents_examples()) >= 0.97


def test_at_most_1_percent_of_real_browsers_are_taken_for_bots():
    assert share(is_bot, lines("browsers.txt")) <= 0.01


@pytest.mark.parametrize("corpus", ["crawler-user-agents", "crawlerdetect"])
def test_no_list_alone_recognises_more_of_a_crawler_corpus(corpus):
    agents = crawler_user_agents_examples() if corpus == "crawler-user-agents" else lines("crawlers-crawlerdetect.txt")
    ours = share(is_bot, agents)
    assert all(ours >= share(detect, agents) for detect in LISTS.values())


def test_browsers_taken_for_bots_stay_within_a_point_of_the_best_list():
    browsers = lines("browsers.txt")
    best = min(share(detect, browsers) for detect in LISTS.values())
    assert share(is_bot, browsers) <= best + 0.01


@pytest.mark.parametrize(
    "agent",
    [
        "Amazon-Route53-Health-Check-Service (ref 0c5a1b2e; report http://amzn.to/1vsZADi)",
        "ELB-HealthChecker/2.0",
        "ApacheBench/2.3",
        "Blogtrottr/2.0",
        "Bloglovin/1.0 (http://www.bloglovin.com; 12 subscribers)",
        "Braze Sender 8a7e3c",
        "amazon-kendra-web-crawler",
        "Arachni/v1.5.1",
        "Mozilla/5.0 (compatible; archive.org_bot +http://www.archive.org/details/archive.org_bot)",
        "Feedly/1.0 (+http://www.feedly.com/fetcher.html; 3 subscribers)",
        "Mozilla/5.0 (Windows NT 6.1; rv:52.0) Gecko/20100101 Firefox/52.0 Sogou web spider",
        "Bluesky Cardyb/1.1",
        "HTTPie/3.2.2",
        "undici",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.5)",
        "Proofpoint URL Defense",
        "Mimecast Link Scanner",
        "",
    ],
)
def test_health_checks_feed_readers_previewers_and_scanners_are_bots(agent):
    assert is_bot(agent)


@pytest.mark.parametrize(
    "agent",
    [
        "Mozilla/5.0 (Linux; Android 4.2.2; CUBOT C9W Build/JDQ39) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/32.0.1700.99 Mobile Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 "
        "Safari/537.36",
    ],
)
def test_people_are_not_bots(agent):
    assert not is_bot(agent)


def test_the_classifier_version_names_our_rules_and_each_lists_version():
    assert classifier_version() == (
        f"1+crawler-user-agents-{version('crawler-user-agents')}+crawlerdetect-{version('crawlerdetect')}"
    )
