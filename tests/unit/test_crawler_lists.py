"""The upstream lists built for RE2 answer as the packages' own matchers do, on every corpus."""

import crawleruseragents  # type: ignore[import-untyped]
import pytest
from crawlerdetect import CrawlerDetect  # type: ignore[import-untyped]

from shortlink.clicks.crawler_lists import listed_crawler
from tools.developers.bench.agent_corpora import corpora

# The packages' matchers cost about a millisecond a string: the largest corpus is compared on
# every sixteenth string (2,150), the others whole.
EVERY = {"Matomo browsers": 16}


DETECTOR = CrawlerDetect()


def packages_answer(agent: str) -> bool:
    return bool(crawleruseragents.is_crawler(agent)) or bool(DETECTOR.is_crawler(agent))


@pytest.mark.parametrize("corpus", list(corpora()))
def test_the_re2_build_answers_as_the_packages_do(corpus):
    # Given a corpus, when both matchers read each of its strings
    agents = corpora()[corpus][:: EVERY.get(corpus, 1)]
    differing = [agent for agent in agents if listed_crawler(agent) != packages_answer(agent)]
    # Then they agree on every one
    assert differing == []


@pytest.mark.parametrize("agent", ["Googlebot/2.1 (+http://www.google.com/bot.html)", "YandexBot/3.0", "yandex"])
def test_case_and_look_arounds_follow_each_list(agent):
    # crawlerdetect is case-blind and has `Yandex(?!Search)`, which RE2 cannot run
    assert listed_crawler(agent) == packages_answer(agent)


def test_a_string_of_exclusions_alone_is_no_crawler():
    # crawlerdetect removes its exclusions first: nothing left, no crawler
    assert not listed_crawler("Mozilla/5.0 (X11; Linux x86_64)")
    assert not packages_answer("Mozilla/5.0 (X11; Linux x86_64)")
