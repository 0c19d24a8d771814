"""Edge trust with no edge configured: an empty or missing edge secret never makes a request count
as "came through the edge", whatever it carries (an empty secret header matches an empty secret
byte for byte, so the check must refuse before comparing), and a forged viewer address or
country is then never believed, on every path that reads one: the redirect's request and the
console's client address (its sign-in limits)."""

import ipaddress
from typing import Any

import pytest

from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.settings.edge import MIN_EDGE_SECRET_LENGTH, EdgeSettings
from shortlink.web.addresses import client_ip
from shortlink.web.edge import EDGE_SECRET_HEADER, came_through_edge

SOURCE = ipaddress.ip_address("198.51.100.4")
FORGED = {"cloudfront-viewer-address": "203.0.113.66:443", "cloudfront-viewer-country": "DE"}
# What a caller can send in the secret's header when the stack has none
SENT_SECRETS = [None, "", " ", "\x00", "s" * MIN_EDGE_SECRET_LENGTH, "undefined", "None"]


def event(sent_secret: str | None) -> dict[str, Any]:
    headers = dict(FORGED)
    if sent_secret is not None:
        headers[EDGE_SECRET_HEADER] = sent_secret
    return {"headers": headers, "requestContext": {"http": {"sourceIp": str(SOURCE), "method": "GET"}}}


@pytest.mark.parametrize("environment", [{}, {"EDGE_SECRET": ""}])
def test_a_missing_or_empty_edge_secret_is_no_edge(environment):
    settings = EdgeSettings.from_env(environment)
    assert settings.secret == ""
    assert settings.trust_edge_headers is False


@pytest.mark.parametrize("sent", SENT_SECRETS)
def test_without_an_edge_no_request_came_through_it(sent):
    headers = event(sent)["headers"]
    assert came_through_edge(headers, "") is False


@pytest.mark.parametrize("sent", SENT_SECRETS)
def test_without_an_edge_a_forged_viewer_address_and_country_are_never_believed(sent):
    forged = event(sent)
    # The console's client address (what its sign-in limits count)
    assert client_ip(forged, "") == SOURCE
    # The redirect's request: its address (unlock limits) and its visitor (rules)
    request = RedirectRequest(forged, RequestReading(""))
    assert request.through_edge is False
    assert request.client_ip == SOURCE
    assert (request.visitor.country, request.visitor.ip) == ("XX", SOURCE)


def test_with_an_edge_only_its_exact_secret_counts():
    secret = "e" * MIN_EDGE_SECRET_LENGTH
    assert came_through_edge({EDGE_SECRET_HEADER: secret}, secret) is True
    for sent in ["", secret[:-1], secret + "e", secret.upper(), f" {secret}"]:
        assert came_through_edge({EDGE_SECRET_HEADER: sent}, secret) is False, sent
        assert client_ip(event(sent), secret) == SOURCE
    assert came_through_edge({}, secret) is False
