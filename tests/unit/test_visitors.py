"""The visitor as rules see it: viewer headers only through the edge, q-valued languages."""

import ipaddress

import pytest

from shortlink.errors import ConfigurationError
from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.redirect.visitors import preferred_languages
from shortlink.settings.edge import MIN_EDGE_SECRET_LENGTH, EdgeSettings
from shortlink.web.addresses import client_ip
from shortlink.web.edge import EDGE_SECRET_HEADER

SECRET = "s" * MIN_EDGE_SECRET_LENGTH


def event(source_ip="198.51.100.4", **headers):
    return {"headers": headers, "requestContext": {"http": {"sourceIp": source_ip, "method": "GET"}}}


def visitor_of(event, edge_secret):
    """The visitor the redirect reads from `event` on a stack whose edge has `edge_secret`."""
    return RedirectRequest(event, RequestReading(edge_secret)).visitor


def test_languages_are_ordered_by_quality_then_position():
    assert preferred_languages("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == ("fr-ch", "fr", "en", "de")
    assert preferred_languages("en;q=0.2, de") == ("de", "en")
    assert preferred_languages("en;q=0, de;q=abc, it;q=2, es") == ("es",)
    assert preferred_languages("") == ()


def test_cloudfront_headers_count_only_on_requests_through_the_edge():
    viewer = {"cloudfront-viewer-country": "DE", "cloudfront-viewer-address": "203.0.113.9:443"}
    through_edge = visitor_of(event(**viewer, **{EDGE_SECRET_HEADER: SECRET}), SECRET)
    assert through_edge.country == "DE"
    assert through_edge.ip == ipaddress.ip_address("203.0.113.9")
    # Sent to the API directly: without the secret, or with another, nothing is believed
    for forged in (
        event(**viewer),
        event(**viewer, **{EDGE_SECRET_HEADER: "s" * 31}),
        event(**viewer, **{EDGE_SECRET_HEADER: ""}),
    ):
        direct = visitor_of(forged, SECRET)
        assert (direct.country, direct.ip) == ("XX", ipaddress.ip_address("198.51.100.4"))
    # Without an edge, not even the secret is believed
    no_edge = visitor_of(event(**viewer, **{EDGE_SECRET_HEADER: SECRET}), "")
    assert (no_edge.country, no_edge.ip) == ("XX", ipaddress.ip_address("198.51.100.4"))
    secret = {EDGE_SECRET_HEADER: SECRET}
    assert visitor_of(event(**secret), SECRET).country == "XX"  # absent: unknown
    assert visitor_of(event(**secret, **{"cloudfront-viewer-country": "Q1"}), SECRET).country == "XX"


def test_an_edge_secret_is_long_or_absent():
    assert EdgeSettings.from_env({}).trust_edge_headers is False
    assert EdgeSettings.from_env({"EDGE_SECRET": "e" * MIN_EDGE_SECRET_LENGTH}).trust_edge_headers is True
    with pytest.raises(ConfigurationError, match="EDGE_SECRET must be at least"):
        EdgeSettings.from_env({"EDGE_SECRET": "short"})


def test_client_addresses_ipv6_and_mapped_ipv4():
    v6 = event(**{"cloudfront-viewer-address": "2001:db8::1:51234", EDGE_SECRET_HEADER: SECRET})
    assert client_ip(v6, SECRET) == ipaddress.ip_address("2001:db8::1")
    assert RedirectRequest(v6, RequestReading(SECRET)).client_ip == ipaddress.ip_address("2001:db8::1")
    assert client_ip(event(source_ip="::ffff:192.0.2.1"), "") == ipaddress.ip_address("192.0.2.1")
    assert client_ip(event(source_ip="not an address"), "") is None


def test_header_names_are_read_whatever_their_case():
    # API Gateway lower-cases header names; SAM CLI's start-api keeps the client's spelling.
    firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
    spelled = {"User-Agent": firefox, "Accept-Language": "de-AT,de;q=0.9"}
    lowered = {name.lower(): value for name, value in spelled.items()}
    as_sent, as_lowered = (visitor_of({"headers": headers}, "") for headers in (spelled, lowered))
    assert (as_sent.client, as_sent.languages, as_sent.sticky_key) == (
        as_lowered.client,
        as_lowered.languages,
        as_lowered.sticky_key,
    )
    assert as_sent.client.browser == "firefox"
    assert as_sent.languages[0] == "de-at"


@pytest.mark.parametrize("quality", ["\u0660.\u0665", "NaN", "1e0", "0.5000", "+0.5", "0x1", "\uff10.5", "inf"])
def test_a_quality_value_that_is_not_rfc_9110s_leaves_its_language_out(quality):
    assert preferred_languages(f"fr;q={quality}, en;q=0.1") == ("en",)


def test_quality_values_in_ascii_digits_rank_their_languages():
    assert preferred_languages("fr;q=0.25, de;q=1.000, en;q=0.5") == ("de", "en", "fr")
