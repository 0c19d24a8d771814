"""How the redirect classifies a click after its response: the bot lists, repeats of one visitor
within the window, and the country from a database where the edge gives none."""

import ipaddress
from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink import wiring
from shortlink.clicks.country_database import CountryDatabase, record_country
from shortlink.clicks.events import ClickEvent
from shortlink.clicks.ip_databases import open_database
from shortlink.clicks.repeats import RecentFollows
from shortlink.redirect import click_events
from shortlink.redirect.click_events import click_from_request
from shortlink.redirect.request import RedirectRequest
from tests.country_databases import write_country_database

AT = datetime(2026, 11, 30, 14, 0, tzinfo=UTC).timestamp()
SALT_ROOT = b"unit-test-visitor-salt-root"
FIREFOX = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"
CUBOT = (
    "Mozilla/5.0 (Linux; Android 4.2.2; CUBOT C9W Build/JDQ39) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/32.0.1700.99 Mobile Safari/537.36"
)


@pytest.fixture(autouse=True)
def _settings(monkeypatch):
    monkeypatch.delenv("COUNTRY_DATABASE", raising=False)
    monkeypatch.delenv("REPEAT_CLICK_WINDOW_SECONDS", raising=False)
    wiring.reset()
    yield
    wiring.reset()


def request(user_agent: str = FIREFOX, ip: str = "203.0.113.5", **headers: str) -> dict[str, Any]:
    return {"headers": {"user-agent": user_agent, **headers}, "requestContext": {"http": {"sourceIp": ip}}}


def click(at: float = AT, code: str = "abc", **kwargs) -> ClickEvent:
    """The click of a follow of `code` by `request(**kwargs)`, read as the redirect reads it."""
    reading = wiring.click_reading()
    followed = RedirectRequest(request(**kwargs), wiring.request_reading())
    return click_from_request("c1", code, at, followed, "https://example.com/", None, SALT_ROOT, reading)


def test_a_visitor_following_a_link_again_within_the_window_is_counted_and_flagged():
    first, again, later = click(AT), click(AT + 4), click(AT + 20)
    assert (first.repeat, again.repeat, later.repeat) == (False, True, False)
    assert first.visitor == again.visitor  # one visitor, by its daily hash


def test_other_visitors_and_other_links_are_no_repeats():
    click(AT)
    assert not click(AT + 1, ip="203.0.113.6").repeat
    assert not click(AT + 1, code="xyz").repeat


def test_the_window_is_a_setting_and_0_flags_no_repeat(monkeypatch):
    monkeypatch.setenv("REPEAT_CLICK_WINDOW_SECONDS", "0")
    click(AT)
    assert not click(AT + 1).repeat


def test_a_bots_second_fetch_is_a_bots_click_not_a_repeat():
    clicks = [click(AT, user_agent="facebookexternalhit/1.1"), click(AT + 1, user_agent="facebookexternalhit/1.1")]
    assert [(c.agent, c.repeat, c.device) for c in clicks] == [("previewer", False, "bot")] * 2


@pytest.mark.parametrize(
    ("user_agent", "agent"),
    [
        (FIREFOX, "person"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "crawler"),
        ("curl/8.5.0", "library"),
        ("", "library"),
        ("UptimeRobot/2.0", "monitor"),
        ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)", "ai_agent"),
    ],
)
def test_a_click_carries_its_agents_class(user_agent, agent):
    assert click(user_agent=user_agent).agent == agent


def test_a_phone_the_rules_quick_patterns_took_for_a_bot_is_a_person():
    counted = click(user_agent=CUBOT)
    assert (counted.bot, counted.device) == (False, "mobile")


@pytest.mark.parametrize("announced", [{"x-purpose": "preview"}, {"purpose": "preview"}, {"x-purpose": "Preview"}])
def test_a_fetch_announcing_a_preview_is_a_previewers_click_whatever_its_user_agent(announced):
    # Given a browser's User-Agent, when the fetch says it draws a preview
    previewed = click(**announced)
    # Then it is no person's click but a previewer's
    assert (previewed.bot, previewed.agent) == (True, "previewer")
    assert not click(ip="203.0.113.9").bot  # the same browser without the header is a person


def test_recent_follows_forget_the_oldest_past_their_bound():
    recent = RecentFollows(10, max_remembered=2)
    recent.is_repeat("a", "v1", AT)
    recent.is_repeat("a", "v2", AT)
    recent.is_repeat("a", "v3", AT)  # v1 forgotten
    assert not recent.is_repeat("a", "v1", AT + 1)
    assert recent.is_repeat("a", "v3", AT + 1)
    assert not recent.is_repeat("a", "", AT + 1)  # without a visitor hash, nobody is recognised


def test_without_the_edge_the_country_comes_from_the_database(monkeypatch, tmp_path):
    monkeypatch.setenv("COUNTRY_DATABASE", str(write_country_database(tmp_path / "countries.mmdb")))
    assert click(ip="192.0.2.10").country == "DE"
    assert click(ip="2001:db8::7").country == "FR"
    assert click(ip="203.0.113.5").country == "XX"  # not in the database


def test_without_a_database_or_with_an_unreadable_one_the_country_is_unknown(monkeypatch, tmp_path, caplog):
    assert click(ip="192.0.2.10").country == "XX"
    (tmp_path / "broken.mmdb").write_bytes(b"not a database")
    monkeypatch.setenv("COUNTRY_DATABASE", str(tmp_path / "broken.mmdb"))
    wiring.reset()
    assert click(ip="192.0.2.10").country == "XX"
    assert "broken.mmdb not readable: read as none" in caplog.text


def test_the_edges_country_is_preferred_when_the_request_came_through_it(tmp_path):
    database = open_database(str(write_country_database(tmp_path / "countries.mmdb")), CountryDatabase)
    assert click_events.country_of("JP", ipaddress.ip_address("192.0.2.10"), database) == "JP"
    assert click_events.country_of("XX", ipaddress.ip_address("192.0.2.10"), database) == "DE"


def test_a_database_record_names_its_country_one_of_two_ways(tmp_path):
    database = CountryDatabase(str(write_country_database(tmp_path / "countries.mmdb")))
    assert database.country(ipaddress.ip_address("198.51.100.1")) == "JP"
    assert record_country({"country_code": "nl"}) == "NL"
    assert [record_country(record) for record in (None, {}, {"country": {"iso_code": "ZZZ"}})] == ["XX"] * 3
