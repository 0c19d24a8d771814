"""With the edge on, the execute-api URL stays public: CloudFront's viewer headers are believed
only on requests carrying the edge's secret, so a direct caller cannot forge an address (to reset
the password-attempt limit) or a country (to pass country rules)."""

import json
from urllib.parse import urlencode

import pytest

from shortlink import wiring as services
from tests.events import http_event

EDGE_SECRET = "an-edge-secret-of-at-least-32-characters"


@pytest.fixture
def edge_on(aws, monkeypatch):
    """As deployed with EnableEdge=true (the secret resolved from SSM into the function)."""
    monkeypatch.setenv("EDGE_SECRET", EDGE_SECRET)
    monkeypatch.setenv("UNLOCK_ATTEMPTS_PER_WINDOW", "10")
    services.reset()


def request(handlers, code: str, method: str = "GET", form=None, **headers: str) -> int:
    event = http_event(
        method,
        f"/{code}",
        route="/{code}",
        path_parameters={"code": code},
        headers={name.replace("_", "-"): value for name, value in headers.items()},
        body=urlencode(form) if form is not None else None,
        source_ip="198.51.100.7",  # a direct caller, or CloudFront's own address behind the edge
    )
    if form is not None:
        event["headers"]["content-type"] = "application/x-www-form-urlencoded"
    return int(handlers["RedirectFunction"](event)["statusCode"])


def test_a_forged_viewer_address_does_not_reset_the_password_attempt_limit(aws, handlers, edge_on, api):
    code = api.new_link(password="the-right-one")["code"]
    # Given 10 wrong tries, each with a new forged CloudFront-Viewer-Address and no edge secret
    for attempt in range(10):
        forged = f"203.0.113.{attempt}:443"
        assert request(handlers, code, "POST", {"password": "wrong"}, cloudfront_viewer_address=forged) == 403
    # Then the 11th is refused whatever address it claims: they all counted against its real one
    assert request(handlers, code, "POST", {"password": "wrong"}, cloudfront_viewer_address="192.0.2.99:1") == 429
    assert request(handlers, code, "POST", {"password": "wrong"}, x_shortlink_edge_secret="guess") == 429
    # And through the edge (the secret present) the viewer's own address has its own allowance
    through_edge = {"x_shortlink_edge_secret": EDGE_SECRET, "cloudfront_viewer_address": "192.0.2.99:1"}
    assert request(handlers, code, "POST", {"password": "the-right-one"}, **through_edge) == 303


def test_a_forged_country_or_address_passes_no_rule_without_the_edge_secret(aws, handlers, edge_on, api):
    country_only = api.new_link(rules={"allow": {"countries": ["DE"]}})["code"]
    assert request(handlers, country_only, cloudfront_viewer_country="DE") == 403
    assert request(handlers, country_only, cloudfront_viewer_country="DE", x_shortlink_edge_secret="x" * 40) == 403
    assert request(handlers, country_only, cloudfront_viewer_country="DE", x_shortlink_edge_secret=EDGE_SECRET) == 302

    address_denied = api.new_link(rules={"deny": {"ips": ["198.51.100.0/24"]}})["code"]
    assert request(handlers, address_denied, cloudfront_viewer_address="203.0.113.1:443") == 403
    through_edge = {"x_shortlink_edge_secret": EDGE_SECRET, "cloudfront_viewer_address": "203.0.113.1:443"}
    assert request(handlers, address_denied, **through_edge) == 302


def test_without_the_edge_even_the_right_looking_secret_is_not_believed(aws, handlers, api):
    # The template's default (EnableEdge=false): no secret configured, nothing believed.
    code = api.new_link(rules={"allow": {"countries": ["DE"]}})["code"]
    assert request(handlers, code, cloudfront_viewer_country="DE", x_shortlink_edge_secret=EDGE_SECRET) == 403
    assert request(handlers, code, cloudfront_viewer_country="DE", x_shortlink_edge_secret="") == 403


def test_a_rules_link_through_the_edge_reads_its_request_once_before_and_after_the_response(
    aws, handlers, edge_on, api, monkeypatch
):
    from shortlink.clicks.events import ClickPack
    from shortlink.redirect import request, visitors
    from shortlink.web import edge, events

    calls = {"event read": 0, "edge check": 0, "visitor": 0}

    def counted(name: str, function):
        def count(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return count

    code = api.new_link(rules={"allow": {"countries": ["DE"]}})["code"]
    monkeypatch.setattr(request, "read_event", counted("event read", events.read_event))
    monkeypatch.setattr(request, "came_through_edge", counted("edge check", edge.came_through_edge))
    monkeypatch.setattr(visitors, "visitor_of", counted("visitor", visitors.visitor_of))
    # When a German visitor follows it through the edge (names spelled as `sam local` passes them)
    headers = {"User-Agent": "curl/8.5", "X-Shortlink-Edge-Secret": EDGE_SECRET, "CloudFront-Viewer-Country": "DE"}
    event = http_event("GET", f"/{code}", route="/{code}", path_parameters={"code": code}, headers=headers)
    assert handlers["RedirectFunction"](event)["statusCode"] == 302
    # Then its event was read (its headers lower-cased), the secret checked and its visitor built once, for the
    # rules and for the click that the handler's dispatcher sent after the response (inline here)
    assert calls == {"event read": 1, "edge check": 1, "visitor": 1}
    [message] = aws.sqs.receive_message(QueueUrl=aws.queue_urls["ClicksQueue"])["Messages"]
    [click] = ClickPack.from_message(message["Body"], message["MessageId"]).clicks
    assert (click.code, click.country) == (code, "DE")


def test_the_audit_log_hashes_the_viewers_address_behind_the_edge_and_the_callers_without_it(aws, handlers, edge_on):
    key = aws.new_api_key("edge audit")

    def created(**headers: str) -> None:
        event = http_event(
            "POST",
            "/links",
            headers={"authorization": f"Bearer {key}", **{n.replace("_", "-"): v for n, v in headers.items()}},
            body={"url": "https://example.com/audited"},
            source_ip="198.51.100.7",  # CloudFront's own address, or a direct caller's
        )
        assert handlers["CreateFunction"](event)["statusCode"] == 201

    # Two viewers through the edge, then a direct caller who forges a viewer address
    created(x_shortlink_edge_secret=EDGE_SECRET, cloudfront_viewer_address="203.0.113.1:443")
    created(x_shortlink_edge_secret=EDGE_SECRET, cloudfront_viewer_address="203.0.113.2:443")
    created(cloudfront_viewer_address="203.0.113.1:443")
    created()
    audit = http_event("GET", "/audit", headers={"authorization": f"Bearer {key}"})
    entries = json.loads(handlers["KeysFunction"](audit)["body"])["entries"]
    direct, forged, second, first = (entry["client"] for entry in entries)  # newest first
    assert len({first, second, direct}) == 3  # each viewer their own, the edge's address none of theirs
    assert forged == direct  # not believed without the secret: the caller's own address
