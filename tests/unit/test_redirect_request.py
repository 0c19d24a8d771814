"""The redirect reads its request once: a link with rules followed through the edge reads its
event once (its headers lower-cased then), checks the edge's secret once and builds its visitor
once, for the rules before the response and for the click after it (shortlink.redirect.request)."""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink.domains.model import ShortDomains
from shortlink.links.model import Link
from shortlink.redirect import request, visitors
from shortlink.redirect.follows import follow
from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.rules.parsing import parse_rules
from shortlink.web import edge, events
from tests.redirect_fakes import redirect_of

SECRET = "an-edge-secret-of-at-least-32-characters"
FIREFOX = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"
GERMANY_ONLY = Link(
    code="rules1",
    url="https://example.com/everyone",
    owner="owner",
    created_at=datetime(2026, 1, 1, tzinfo=UTC),
    rules=parse_rules(
        {"allow": {"countries": ["DE"]}, "routes": [{"languages": ["de"], "url": "https://example.com/de"}]}
    ),
)


class OneLink:
    """A link source of one link, counting its reads."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.reads = 0

    def get(self, key: str) -> Link | None:
        self.reads += 1
        return self.link if key == self.link.key else None


class Counted:
    """`function`, counting its calls."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.function(*args, **kwargs)


def through_edge(code: str, **headers: str) -> dict[str, Any]:
    """A follow of `code` as CloudFront sends it, header names spelled as a client may (SAM CLI
    keeps them so): the secret, the viewer's country and address."""
    return {
        "routeKey": "GET /{code}",
        "pathParameters": {"code": code},
        "headers": {
            "User-Agent": FIREFOX,
            "Accept-Language": "de-DE,de;q=0.9",
            "X-Shortlink-Edge-Secret": SECRET,
            "CloudFront-Viewer-Country": "DE",
            "CloudFront-Viewer-Address": "203.0.113.9:443",
            **headers,
        },
        "requestContext": {"http": {"method": "GET", "sourceIp": "198.51.100.7"}},
    }


@pytest.fixture
def counted(monkeypatch) -> dict[str, Counted]:
    """The request's three readings counted where it calls them."""
    counts = {
        "event read": Counted(events.read_event),
        "edge check": Counted(edge.came_through_edge),
        "visitor": Counted(visitors.visitor_of),
    }
    monkeypatch.setattr(request, "read_event", counts["event read"])
    monkeypatch.setattr(request, "came_through_edge", counts["edge check"])
    monkeypatch.setattr(visitors, "visitor_of", counts["visitor"])
    return counts


def test_a_rules_link_behind_the_edge_reads_its_request_once_for_the_rules_and_the_click(counted):
    # Given a stack behind the edge and a link only Germany may follow, routed by language
    reading = RequestReading(SECRET, ShortDomains())
    services, dispatcher, publisher = redirect_of(OneLink(GERMANY_ONLY), reading)
    event = through_edge("rules1")
    # When a German visitor follows it through the edge
    answer = follow(services, RedirectRequest(event, reading))
    # Then the rules let it through and route it, from one reading of the request
    assert (answer["statusCode"], answer["headers"]["Location"]) == (302, "https://example.com/de")
    assert {name: count.calls for name, count in counted.items()} == {"event read": 1, "edge check": 1, "visitor": 1}
    # And the click, described after the response, is read from the same visitor: nothing again
    dispatcher.invocation_done()
    [pack] = publisher.packs
    [click] = pack.clicks
    assert (click.code, click.country, click.browser, click.language) == ("rules1", "DE", "firefox", "de")
    assert {name: count.calls for name, count in counted.items()} == {"event read": 1, "edge check": 1, "visitor": 1}


def test_a_refused_visitor_is_read_once_and_makes_no_click(counted):
    reading = RequestReading(SECRET, ShortDomains())
    services, dispatcher, publisher = redirect_of(OneLink(GERMANY_ONLY), reading)
    event = through_edge("rules1", **{"CloudFront-Viewer-Country": "FR"})
    assert follow(services, RedirectRequest(event, reading))["statusCode"] == 403
    dispatcher.invocation_done()
    assert [pack.clicks for pack in publisher.packs] == []
    assert {name: count.calls for name, count in counted.items()} == {"event read": 1, "edge check": 1, "visitor": 1}


def test_a_plain_hit_reads_only_its_purpose_headers_before_the_response_and_the_rest_after(counted):
    # Given a plain link behind the edge
    reading = RequestReading(SECRET, ShortDomains())
    plain = Link(code="plain1", url="https://example.com/", owner="owner", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    services, dispatcher, publisher = redirect_of(OneLink(plain), reading)
    # When it is followed: its headers are read (is it a prefetch?), nothing else before the response
    answer = follow(services, RedirectRequest(through_edge("plain1"), reading))
    assert (answer["statusCode"], answer["headers"]["Location"]) == (302, "https://example.com/")
    assert {name: count.calls for name, count in counted.items()} == {"event read": 1, "edge check": 0, "visitor": 0}
    # Then, once the response is out, its click reads the rest once, through the edge as the rules would
    dispatcher.invocation_done()
    [pack] = publisher.packs
    assert [(click.code, click.country) for click in pack.clicks] == [("plain1", "DE")]
    assert {name: count.calls for name, count in counted.items()} == {"event read": 1, "edge check": 1, "visitor": 1}


def test_without_the_edge_no_header_is_believed_and_the_secret_is_never_compared(counted):
    reading = RequestReading("", ShortDomains())
    services, _, _ = redirect_of(OneLink(GERMANY_ONLY), reading)
    followed = RedirectRequest(through_edge("rules1"), reading)
    assert follow(services, followed)["statusCode"] == 403  # the forged country is not believed
    assert (followed.visitor.country, str(followed.client_ip)) == ("XX", "198.51.100.7")
    assert counted["edge check"].calls == 0


def test_a_posted_form_is_read_once_and_a_large_one_not_at_all():
    reading = RequestReading()
    posted = {"body": "password=s%C3%A9same&password=second&other=", "requestContext": {"http": {"method": "POST"}}}
    form = RedirectRequest(posted, reading)
    assert form.form == {"password": "sésame", "other": ""}
    assert form.form is form.form
    assert RedirectRequest({"body": "a=" + "x" * 1100}, reading).form is None


def test_a_fully_qualified_host_with_its_final_dot_is_the_same_host_through_every_front():
    # Given a stack of two domains, behind the edge (several domains: the edge names the viewer's host)
    reading = RequestReading(SECRET, ShortDomains.parse("sho.rt,go.example"))

    def http_api(host: str) -> dict[str, Any]:
        return {"routeKey": "GET /{code}", "pathParameters": {"code": "abc"}, "headers": {},
                "requestContext": {"http": {"method": "GET"}, "domainName": host, "apiId": "a1"}}  # fmt: skip

    def load_balancer(host: str) -> dict[str, Any]:
        return {"requestContext": {"elb": {}}, "httpMethod": "GET", "path": "/abc", "headers": {"host": host}}

    def edge_named(host: str) -> dict[str, Any]:
        return through_edge("abc", **{"X-Shortlink-Host": host})

    # When each front names a host fully qualified (browsers and HTTP read `sho.rt.` as `sho.rt`)
    hosts = {
        "sho.rt.": "abc", "SHO.RT.:443": "abc", "go.example.": "go.example/abc",
        "links.acme.test.": "links.acme.test/abc",
    }  # fmt: skip
    # Then each is read as the host without the dot, whatever front it came through
    for host, key in hosts.items():
        for event in (http_api(host), load_balancer(host), edge_named(host)):
            assert RedirectRequest(event, reading).key == key, (host, event)
    # The fronts' own hosts serve the default domain, dotted or not
    assert RedirectRequest(http_api("a1.execute-api.us-east-1.amazonaws.com."), reading).key == "abc"
    assert RedirectRequest(load_balancer("lb-1.us-east-1.elb.amazonaws.com."), reading).key == "abc"
    assert RedirectRequest(edge_named("d111.cloudfront.net."), reading).key == "abc"
    # A name of two final dots (or a lone one) is no host name
    assert RedirectRequest(http_api("sho.rt.."), reading).key is None
    assert RedirectRequest(edge_named("."), reading).key is None
