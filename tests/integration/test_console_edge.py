"""The console behind the edge: CloudFront replaces Host with the API's own and connects from its
own address, so the origin check reads the viewer's host and the sign-in limit the viewer's
address from the edge's headers, believed only with the edge's secret."""

from typing import Any
from urllib.parse import urlencode

import pytest

from shortlink import wiring as services
from tests.events import http_event

EDGE_SECRET = "an-edge-secret-of-at-least-32-characters"
API_HOST = "abc123.execute-api.us-east-1.amazonaws.com"  # what CloudFront sends as Host
CLOUDFRONT = "130.176.1.1"  # API Gateway's source IP of every request through the edge


@pytest.fixture
def edge_on(aws, monkeypatch):
    monkeypatch.setenv("EDGE_SECRET", EDGE_SECRET)
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt,go.example.com")
    services.reset()


def sign_in(handlers, key: str, **headers: str) -> dict[str, Any]:
    event = http_event(
        "POST",
        "/console/sign-in",
        route="/console/{proxy+}",
        headers={"host": API_HOST, "content-type": "application/x-www-form-urlencoded", **headers},
        body=urlencode({"api_key": key}),
        source_ip=CLOUDFRONT,
    )
    answer: dict[str, Any] = handlers["ConsoleFunction"](event)
    return answer


def through_edge(viewer_host: str | None = "go.example.com", address: str = "203.0.113.9") -> dict[str, str]:
    headers = {"x-shortlink-edge-secret": EDGE_SECRET, "cloudfront-viewer-address": f"{address}:50123"}
    return headers | ({"x-shortlink-host": viewer_host} if viewer_host else {})


def test_a_console_form_through_the_edge_is_judged_by_the_viewers_host(aws, handlers, edge_on):
    key = aws.new_api_key()
    # The browser's own origin, as the edge names the viewer's host: accepted
    assert sign_in(handlers, key, origin="https://go.example.com", **through_edge())["statusCode"] == 303
    # Another site's page posting through the edge: refused
    assert sign_in(handlers, key, origin="https://evil.example", **through_edge())["statusCode"] == 403
    # A direct caller naming a viewer host without the secret: Host decides, as without an edge
    forged = {"x-shortlink-host": "evil.example", "x-shortlink-edge-secret": "guess" * 8}
    assert sign_in(handlers, key, origin="https://evil.example", **forged)["statusCode"] == 403
    assert sign_in(handlers, key, origin=f"https://{API_HOST}", **forged)["statusCode"] == 303


def test_an_edge_of_one_domain_names_no_host_and_the_browsers_fetch_site_decides(aws, handlers, edge_on):
    key = aws.new_api_key()
    edge = through_edge(viewer_host=None)
    same = {"origin": "https://d111.cloudfront.net", "sec-fetch-site": "same-origin"}
    assert sign_in(handlers, key, **same, **edge)["statusCode"] == 303
    for refused in (
        {"origin": "https://evil.example", "sec-fetch-site": "cross-site"},
        {"origin": "https://evil.example"},  # no word from the browser: refused
        {"origin": "http://d111.cloudfront.net", "sec-fetch-site": "same-origin"},  # not https
    ):
        assert sign_in(handlers, key, **refused, **edge)["statusCode"] == 403, refused


def test_the_sign_in_limit_counts_the_viewer_not_cloudfront_and_an_ipv6_viewer_by_its_64(aws, handlers, edge_on):
    origin = {"origin": "https://go.example.com"}
    # Ten wrong keys from one viewer use up its attempts...
    for _ in range(10):
        assert sign_in(handlers, "sl_wrong", **origin, **through_edge())["statusCode"] == 401
    assert sign_in(handlers, "sl_wrong", **origin, **through_edge())["statusCode"] == 429
    # ...not another viewer's, though both come from CloudFront's address
    assert sign_in(handlers, aws.new_api_key(), **origin, **through_edge(address="198.51.100.4"))["statusCode"] == 303
    # Addresses of one IPv6 /64 share their attempts
    for n in range(10):
        address = f"2001:db8:7:7::{n + 1:x}"  # CloudFront writes an IPv6 viewer unbracketed
        assert sign_in(handlers, "sl_wrong", **origin, **through_edge(address=address))["statusCode"] == 401
    assert sign_in(handlers, "sl_wrong", **origin, **through_edge(address="2001:db8:7:7::ff"))["statusCode"] == 429
