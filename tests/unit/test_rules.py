"""Access lists and routes: validation that names the field, and evaluation per visitor."""

import ipaddress
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.errors import InvalidLinkOption, InvalidUrl
from shortlink.rules.model import Visitor
from shortlink.rules.parsing import parse_rules, stored_rules
from shortlink.rules.user_agents import Client

MONDAY_NOON = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # a Monday


def visitor(
    country="DE",
    device="desktop",
    browser="chrome",
    os="windows",
    ip="203.0.113.7",
    languages=("en",),
    now=MONDAY_NOON,
    key=b"visitor-1",
):
    return Visitor(
        country=country,
        client=Client(device, browser, os),
        ip=ipaddress.ip_address(ip) if ip else None,
        languages=tuple(languages),
        now=now,
        sticky_key=key,
    )


def test_the_document_is_normalised_for_storage_and_display():
    rules = parse_rules(
        {
            "allow": {"countries": ["de", "AT", "DE"], "ips": ["2001:DB8::/32", "10.0.0.1"]},
            "routes": [{"languages": ["DE-at"], "devices": ["Mobile"], "url": "https://example.com/de"}],
        }
    )
    assert rules.document == {
        "allow": {"countries": ["DE", "AT"], "ips": ["2001:db8::/32", "10.0.0.1/32"]},
        "routes": [{"languages": ["de-at"], "devices": ["mobile"], "url": "https://example.com/de"}],
    }
    assert stored_rules('{"deny":{"devices":["bot"]}}').denies(visitor(device="bot"))


@pytest.mark.parametrize(
    ("document", "field", "mentions"),
    [
        ([], "rules", "object"),
        ({"alow": {}}, "rules.alow", "unknown field"),
        ({"allow": {"countries": ["DE", "ZZ"]}}, "rules.allow.countries[1]", "ISO 3166-1"),
        ({"allow": {"countries": []}}, "rules.allow.countries", "non-empty"),
        ({"deny": {"ips": ["10.0.0.1/8"]}}, "rules.deny.ips[0]", "did you mean 10.0.0.0/8"),
        ({"deny": {"ips": ["2001:db8::g"]}}, "rules.deny.ips[0]", "IPv4/IPv6"),
        ({"deny": {"devices": ["phone"]}}, "rules.deny.devices[0]", "mobile"),
        ({"deny": {"languages": ["de"]}}, "rules.deny.languages", "unknown field"),
        ({"routes": [{"url": "https://a.example", "split": []}]}, "rules.routes[0]", "exactly one"),
        ({"routes": [{"countries": ["FR"]}]}, "rules.routes[0]", "exactly one"),
        ({"routes": [{"url": "ftp://a.example"}]}, "rules.routes[0].url", "http"),
        ({"routes": [{"languages": ["en_US"], "url": "https://a.example"}]}, "rules.routes[0].languages[0]", "tag"),
        (
            {"routes": [{"split": [{"url": "https://a.example", "weight": 0}, {"url": "https://b.example"}]}]},
            "rules.routes[0].split[0].weight",
            "1 to",
        ),
        ({"routes": [{"split": [{"url": "https://a.example", "weight": 1}]}]}, "rules.routes[0].split", "2-10"),
        (
            {"routes": [{"time": {"from": "25:00", "to": "03:00"}, "url": "https://a.example"}]},
            "rules.routes[0].time.from",
            "HH:MM",
        ),
        ({"routes": [{"time": {"from": "09:00"}, "url": "https://a.example"}]}, "rules.routes[0].time", "both"),
        (
            {"routes": [{"time": {"from": "00:00", "to": "24:00"}, "url": "https://a.example"}]},
            "rules.routes[0].time.to",
            "differ",
        ),
        (
            {"routes": [{"time": {"days": ["funday"]}, "url": "https://a.example"}]},
            "rules.routes[0].time.days[0]",
            "mon",
        ),
        ({"routes": [{"url": "https://a.example"}] * 21}, "rules.routes", "at most 20"),
    ],
)
def test_invalid_rules_are_refused_naming_the_field(document, field, mentions):
    def check_url(url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise InvalidUrl("url must be an absolute http(s) URL")
        return url

    with pytest.raises(InvalidLinkOption) as refused:
        parse_rules(document, check_url)
    assert refused.value.field == field
    assert mentions in str(refused.value)


def test_deny_lists_deny_anyone_they_name():
    rules = parse_rules({"deny": {"countries": ["RU"], "devices": ["bot"], "ips": ["198.51.100.0/24"]}})
    assert rules.denies(visitor(country="RU"))
    assert rules.denies(visitor(device="bot"))
    assert rules.denies(visitor(ip="198.51.100.200"))
    assert not rules.denies(visitor())


def test_allow_lists_admit_only_those_every_list_names():
    rules = parse_rules({"allow": {"countries": ["DE", "AT"], "os": ["ios", "android"]}})
    assert not rules.denies(visitor(country="AT", os="ios"))
    assert rules.denies(visitor(country="AT", os="windows"))
    assert rules.denies(visitor(country="FR", os="ios"))
    # An unknown country (no edge, or not located) is not on an allow list unless XX is.
    assert rules.denies(visitor(country="XX", os="ios"))
    assert not parse_rules({"allow": {"countries": ["DE", "XX"]}}).denies(visitor(country="XX"))
    assert not parse_rules({"deny": {"countries": ["DE"]}}).denies(visitor(country="XX"))


def test_ip_lists_cover_ipv4_and_ipv6_networks():
    rules = parse_rules({"allow": {"ips": ["192.0.2.0/24", "2001:db8::/32"]}})
    assert not rules.denies(visitor(ip="192.0.2.55"))
    assert not rules.denies(visitor(ip="2001:db8:1::9"))
    assert rules.denies(visitor(ip="2001:db9::1"))
    assert rules.denies(visitor(ip=None))


def test_the_first_matching_route_wins_else_the_links_url():
    rules = parse_rules(
        {
            "routes": [
                {"countries": ["FR"], "devices": ["mobile"], "url": "https://fr-mobile.example"},
                {"countries": ["FR"], "url": "https://fr.example"},
                {"os": ["ios"], "url": "https://apps.apple.example"},
            ]
        }
    )
    assert (
        rules.destination(visitor(country="FR", device="mobile", os="ios"), "c", "https://d")
        == "https://fr-mobile.example"
    )
    assert rules.destination(visitor(country="FR", os="ios"), "c", "https://d") == "https://fr.example"
    assert rules.destination(visitor(country="DE", os="ios"), "c", "https://d") == "https://apps.apple.example"
    assert rules.destination(visitor(country="DE"), "c", "https://d") == "https://d"


def test_language_routes_follow_the_visitors_most_preferred_language():
    rules = parse_rules(
        {
            "routes": [
                {"languages": ["de"], "url": "https://de.example"},
                {"languages": ["fr-ca"], "url": "https://fr-ca.example"},
            ]
        }
    )
    assert rules.destination(visitor(languages=("de-at", "en")), "c", "https://d") == "https://de.example"
    assert rules.destination(visitor(languages=("en", "de")), "c", "https://d") == "https://d"
    assert rules.destination(visitor(languages=("fr-ca",)), "c", "https://d") == "https://fr-ca.example"
    assert rules.destination(visitor(languages=("fr",)), "c", "https://d") == "https://d"
    assert rules.destination(visitor(languages=()), "c", "https://d") == "https://d"


def test_time_windows_are_utc_and_may_wrap_past_midnight():
    office = parse_rules(
        {"routes": [{"time": {"from": "09:00", "to": "17:00", "days": ["mon", "fri"]}, "url": "https://o"}]}
    )
    night = parse_rules({"routes": [{"time": {"from": "22:00", "to": "06:00"}, "url": "https://n"}]})

    def at(day: int, hour: int, minute: int = 0) -> datetime:
        return MONDAY_NOON.replace(hour=hour, minute=minute) + timedelta(days=day)

    assert office.destination(visitor(now=at(0, 9)), "c", "https://d") == "https://o"
    assert office.destination(visitor(now=at(0, 16, 59)), "c", "https://d") == "https://o"
    assert office.destination(visitor(now=at(0, 17)), "c", "https://d") == "https://d"  # the end is exclusive
    assert office.destination(visitor(now=at(1, 12)), "c", "https://d") == "https://d"  # a Tuesday
    assert night.destination(visitor(now=at(0, 23)), "c", "https://d") == "https://n"
    assert night.destination(visitor(now=at(0, 5, 59)), "c", "https://d") == "https://n"
    assert night.destination(visitor(now=at(0, 6)), "c", "https://d") == "https://d"


def test_a_split_is_sticky_per_visitor_and_follows_the_weights():
    rules = parse_rules(
        {"routes": [{"split": [{"url": "https://a", "weight": 70}, {"url": "https://b", "weight": 30}]}]}
    )
    chosen = {rules.destination(visitor(key=b"one visitor"), "code1", "https://d") for _ in range(20)}
    assert len(chosen) == 1  # the same visitor, the same variant, every time
    shares = Counter(
        rules.destination(visitor(key=f"visitor {i}".encode()), "code1", "https://d") for i in range(10_000)
    )
    assert set(shares) == {"https://a", "https://b"}
    assert 6_700 <= shares["https://a"] <= 7_300  # 70 % give or take sampling noise (±6.5 sigma)
