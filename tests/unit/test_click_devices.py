"""A click's device type, browser and OS as ua-parser reads them after the response, in the link
rules' vocabulary (shortlink.clicks.devices)."""

import pytest

from shortlink.clicks.devices import client_of
from shortlink.rules.user_agents import BROWSERS, OPERATING_SYSTEMS, Client
from tools.developers.bench.agent_corpora import corpora

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
IPAD_CHROME = (
    "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 "
    "Mobile/15E148 Safari/604.1"
)
ANDROID_TABLET = (
    "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
)
EDGE = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 "
    "Edg/126.0"
)
CHROMEBOOK = (
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
)
FIREFOX_UBUNTU = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"
YANDEX = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 "
    "YaBrowser/24.1.0.0 Safari/537.36"
)
# Chrome's reduced User-Agent: the hints say what it hides.
REDUCED = (
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
)


@pytest.mark.parametrize(
    ("user_agent", "expected"),
    [
        (IPHONE, Client("mobile", "safari", "ios")),
        (IPAD_CHROME, Client("tablet", "chrome", "ios")),
        (ANDROID_TABLET, Client("tablet", "chrome", "android")),
        (EDGE, Client("desktop", "edge", "windows")),
        (CHROMEBOOK, Client("desktop", "chrome", "chromeos")),
        (FIREFOX_UBUNTU, Client("desktop", "firefox", "linux")),
        (YANDEX, Client("desktop", "other", "windows")),  # a Chromium browser that is not Chrome
        ("", Client("desktop", "other", "other")),
    ],
)
def test_ua_parser_families_are_read_in_the_rules_vocabulary(user_agent, expected):
    assert client_of(user_agent, {}) == expected


def test_client_hints_win_over_the_user_agent():
    hints = {"sec-ch-ua": '"Microsoft Edge";v="126", "Chromium";v="126"', "sec-ch-ua-platform": '"Windows"'}
    assert client_of(REDUCED, {**hints, "sec-ch-ua-mobile": "?0"}) == Client("desktop", "edge", "windows")
    assert client_of(REDUCED, {"sec-ch-ua-mobile": "?1"}).device == "mobile"


def test_every_people_corpus_string_reads_as_a_value_of_the_vocabulary():
    agents = corpora()["Matomo browsers"][::50]
    read = [client_of(agent, {}) for agent in agents]
    assert {client.device for client in read} <= {"mobile", "tablet", "desktop"}
    assert {client.browser for client in read} <= BROWSERS
    assert {client.os for client in read} <= OPERATING_SYSTEMS
    assert len({client.browser for client in read}) == len(BROWSERS)  # each value is reached
