"""The visitor as rules see it: trusted headers only behind the edge, q-valued languages."""

import ipaddress
from datetime import UTC, datetime

from shortlink.visitors import client_ip, preferred_languages, visitor_of

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def event(source_ip="198.51.100.4", **headers):
    return {"headers": headers, "requestContext": {"http": {"sourceIp": source_ip, "method": "GET"}}}


def test_languages_are_ordered_by_quality_then_position():
    assert preferred_languages("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == ("fr-ch", "fr", "en", "de")
    assert preferred_languages("en;q=0.2, de") == ("de", "en")
    assert preferred_languages("en;q=0, de;q=abc, it;q=2, es") == ("es",)
    assert preferred_languages("") == ()


def test_cloudfront_headers_count_only_behind_the_edge():
    spoofed = event(**{"cloudfront-viewer-country": "DE", "cloudfront-viewer-address": "203.0.113.9:443"})
    direct = visitor_of(spoofed, trust_edge_headers=False, now=NOW)
    assert direct.country == "XX"
    assert direct.ip == ipaddress.ip_address("198.51.100.4")
    behind_edge = visitor_of(spoofed, trust_edge_headers=True, now=NOW)
    assert behind_edge.country == "DE"
    assert behind_edge.ip == ipaddress.ip_address("203.0.113.9")
    assert visitor_of(event(), trust_edge_headers=True, now=NOW).country == "XX"  # absent: unknown
    assert visitor_of(event(**{"cloudfront-viewer-country": "Q1"}), True, NOW).country == "XX"


def test_client_addresses_ipv6_and_mapped_ipv4():
    v6 = event(**{"cloudfront-viewer-address": "2001:db8::1:51234"})
    assert client_ip(v6, trust_edge_headers=True) == ipaddress.ip_address("2001:db8::1")
    assert client_ip(event(source_ip="::ffff:192.0.2.1"), False) == ipaddress.ip_address("192.0.2.1")
    assert client_ip(event(source_ip="not an address"), False) is None
