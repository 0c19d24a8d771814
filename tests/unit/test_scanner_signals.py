"""Email and security scanners that fetch with a browser's User-Agent, told apart after the
response by their network (an ASN database written by mmdb-writer) and their timing (several
links of one visitor within a second): such clicks are the `scanner` class's, not a person's."""

import ipaddress
from datetime import UTC, datetime

import pytest

from shortlink import wiring
from shortlink.clicks.bots import agent_class, click_class
from shortlink.clicks.events import ClickEvent
from shortlink.clicks.link_bursts import LinkBursts
from shortlink.clicks.network_database import Network, NetworkDatabase, record_network
from shortlink.errors import ConfigurationError
from shortlink.redirect.click_events import click_from_request
from shortlink.redirect.request import RedirectRequest
from shortlink.settings.scanners import SCANNER_ASNS, ScannerSettings
from tests.network_databases import write_network_database

AT = datetime(2026, 11, 30, 14, 0, tzinfo=UTC).timestamp()
EDGE = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 "
    "Edg/126.0"
)
MICROSOFT, PROOFPOINT, BROADBAND, UNKNOWN = "192.0.2.10", "198.51.100.10", "2001:db8::7", "203.0.113.5"


@pytest.fixture(autouse=True)
def _settings(monkeypatch, tmp_path):
    for name in ("SCANNER_NETWORKS", "SCANNER_ASNS", "SCANNER_NETWORK_NAMES", "SCANNER_BURST_LINKS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NETWORK_DATABASE", str(write_network_database(tmp_path / "networks.mmdb")))
    wiring.reset()
    yield
    wiring.reset()


def click(ip: str, at: float = AT, code: str = "abc", user_agent: str = EDGE) -> ClickEvent:
    event = {"headers": {"user-agent": user_agent}, "requestContext": {"http": {"sourceIp": ip}}}
    followed = RedirectRequest(event, wiring.request_reading())
    reading = wiring.click_reading()
    return click_from_request("c1", code, at, followed, "https://example.com/", None, b"salt-root", reading)


def test_a_browser_from_a_listed_scanner_network_is_a_scanners_click():
    # Given Edge's User-Agent from Microsoft's network (number) and from Proofpoint's (by name)
    # Then both are bots' clicks, and the same browser from a home network is a person's
    assert click(MICROSOFT).bot
    assert click(PROOFPOINT).bot
    assert not click(BROADBAND).bot
    assert not click(UNKNOWN).bot  # an address the database does not know


def test_the_network_signal_is_a_setting_off_or_with_other_networks(monkeypatch):
    monkeypatch.setenv("SCANNER_NETWORKS", "off")
    wiring.reset()
    assert not click(MICROSOFT).bot
    monkeypatch.setenv("SCANNER_NETWORKS", "on")
    monkeypatch.setenv("SCANNER_ASNS", "AS3320")
    monkeypatch.setenv("SCANNER_NETWORK_NAMES", "Telekom")
    wiring.reset()
    assert (click(MICROSOFT).bot, click(PROOFPOINT).bot, click(BROADBAND).bot) == (False, False, True)


def test_without_a_network_database_no_click_is_taken_for_a_scanners_by_its_network(monkeypatch):
    monkeypatch.delenv("NETWORK_DATABASE")
    wiring.reset()
    assert not click(MICROSOFT).bot


def test_several_links_of_one_visitor_within_a_second_are_a_scanners_burst():
    # Given a scanner opening every link of a message at once
    first, second, third = click(UNKNOWN, AT, "m1"), click(UNKNOWN, AT + 0.2, "m2"), click(UNKNOWN, AT + 0.4, "m3")
    # Then the third distinct link makes the burst (the ones before it counted as they were classified)
    assert (first.bot, second.bot, third.bot) == (False, False, True)
    assert click(UNKNOWN, AT + 0.5, "m4").bot


def test_a_person_tapping_links_seconds_apart_or_one_link_again_is_no_burst():
    assert not any(click(UNKNOWN, AT + 2 * step, f"n{step}").bot for step in range(4))
    assert not any(click(BROADBAND, AT + 0.1 * step, "same").bot for step in range(4))  # repeats, not a burst
    # other visitors (another address) do not add to one visitor's burst
    assert not any(click(f"203.0.113.{20 + step}", AT + 0.1 * step, f"o{step}").bot for step in range(4))


def test_the_burst_is_a_setting_and_0_links_turns_it_off(monkeypatch):
    monkeypatch.setenv("SCANNER_BURST_LINKS", "0")
    wiring.reset()
    assert not any(click(UNKNOWN, AT + 0.1 * step, f"p{step}").bot for step in range(5))


def test_a_bot_that_says_what_it_is_keeps_its_class_and_a_person_becomes_a_scanner():
    assert click_class(EDGE, scanner_likely=True) == "scanner"
    assert click_class(EDGE, scanner_likely=False) == "person"
    assert click_class("facebookexternalhit/1.1", scanner_likely=True) == agent_class("facebookexternalhit/1.1")


def test_link_bursts_forget_the_oldest_visitors_past_their_bound():
    bursts = LinkBursts(1.0, 2, max_remembered=2)
    bursts.is_burst("v1", "a", AT)
    bursts.is_burst("v2", "a", AT)
    bursts.is_burst("v3", "a", AT)  # v1 forgotten
    assert not bursts.is_burst("v1", "b", AT + 0.1)
    assert bursts.is_burst("v3", "b", AT + 0.1)
    assert not bursts.is_burst("", "c", AT + 0.1)  # without a visitor hash, no burst


def test_a_network_record_is_read_as_geolite2_and_db_ip_write_it(tmp_path):
    database = NetworkDatabase(str(write_network_database(tmp_path / "n.mmdb")))
    assert database.network(ipaddress.ip_address(MICROSOFT)) == Network(8075, "MICROSOFT-CORP-MSN-AS-BLOCK")
    assert database.network(ipaddress.ip_address(UNKNOWN)) is None
    odd: tuple[object, ...] = (None, {}, {"autonomous_system_number": "8075"}, {"autonomous_system_number": True})
    assert [record_network(record) for record in odd] == [None] * 4
    assert record_network({"autonomous_system_number": 1}) == Network(1, "")


def test_the_networks_settings_take_ascii_numbers_with_or_without_as_and_name_a_wrong_one():
    assert ScannerSettings.from_env({}).asns == SCANNER_ASNS
    assert ScannerSettings.from_env({"SCANNER_ASNS": " AS8075, as22843 ,"}).asns == {8075, 22843}
    assert ScannerSettings.from_env({"SCANNER_NETWORK_NAMES": "Proofpoint, MIMECAST"}).network_names == {
        "proofpoint",
        "mimecast",
    }
    arabic_indic_3320 = "\u0663\u0663\u0662\u0660"
    for wrong in (f"AS{arabic_indic_3320}", "8075.5", "4294967296", "-1"):
        with pytest.raises(ConfigurationError, match=r"^SCANNER_ASNS: an autonomous system: must be a whole number"):
            ScannerSettings.from_env({"SCANNER_ASNS": wrong})
    with pytest.raises(ConfigurationError, match=r"^SCANNER_NETWORKS: must be one of on, off"):
        ScannerSettings.from_env({"SCANNER_NETWORKS": "yes"})
