"""The redirect reads its request once: a link with rules followed through the edge lower-cases
its headers once, checks the edge's secret once and builds its visitor once, for the rules
before the response and for the click after it (shortlink.redirect.request)."""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink.clicks.events import ClickPack
from shortlink.clicks.repeats import RecentFollows
from shortlink.domains.model import ShortDomains
from shortlink.links.model import Link
from shortlink.redirect import edge, request, visitors
from shortlink.redirect.cache import CachedLinks
from shortlink.redirect.click_dispatch import InlineDispatcher
from shortlink.redirect.click_events import ClickReading
from shortlink.redirect.follows import follow
from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.redirect.responses import plain_redirect
from shortlink.redirect.services import RedirectServices
from shortlink.rules.parsing import parse_rules
from shortlink.settings.metrics import RedirectMetricSettings

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


class Publisher:
    def __init__(self) -> None:
        self.packs: list[ClickPack] = []

    def publish(self, pack: ClickPack) -> None:
        self.packs.append(pack)


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
        "lower-casing": Counted(edge.request_headers),
        "edge check": Counted(edge.came_through_edge),
        "visitor": Counted(visitors.visitor_of),
    }
    monkeypatch.setattr(request, "request_headers", counts["lower-casing"])
    monkeypatch.setattr(request, "came_through_edge", counts["edge check"])
    monkeypatch.setattr(visitors, "visitor_of", counts["visitor"])
    return counts


def redirect_of(link: Link, reading: RequestReading) -> tuple[RedirectServices, InlineDispatcher, Publisher]:
    publisher = Publisher()
    links = CachedLinks(OneLink(link), 10, 30, 5, prepare=plain_redirect)
    clicks = ClickReading(reading, RecentFollows(10), None)
    metrics = RedirectMetricSettings(own_service="redirect")
    dispatcher = InlineDispatcher(lambda: publisher, lambda: b"unit-test-salt-root", lambda: clicks, lambda: metrics)

    def unused() -> Any:
        pytest.fail("a rules link reads no budget, attempt log, domain settings or robots.txt")

    services = RedirectServices(
        links=lambda: links,
        dispatcher=dispatcher,
        reading=reading,
        unlock_attempts_per_window=10,
        click_budget=unused,
        attempt_log=unused,
        domain_settings=unused,
        robots=unused,
    )
    return services, dispatcher, publisher


def test_a_rules_link_behind_the_edge_reads_its_request_once_for_the_rules_and_the_click(counted):
    # Given a stack behind the edge and a link only Germany may follow, routed by language
    reading = RequestReading(SECRET, ShortDomains())
    services, dispatcher, publisher = redirect_of(GERMANY_ONLY, reading)
    event = through_edge("rules1")
    # When a German visitor follows it through the edge
    answer = follow(services, RedirectRequest(event, "GET", "rules1", reading))
    # Then the rules let it through and route it, from one reading of the request
    assert (answer["statusCode"], answer["headers"]["Location"]) == (302, "https://example.com/de")
    assert {name: count.calls for name, count in counted.items()} == {"lower-casing": 1, "edge check": 1, "visitor": 1}
    # And the click, described after the response, is read from the same visitor: nothing again
    dispatcher.invocation_done()
    [pack] = publisher.packs
    [click] = pack.clicks
    assert (click.code, click.country, click.browser, click.language) == ("rules1", "DE", "firefox", "de")
    assert {name: count.calls for name, count in counted.items()} == {"lower-casing": 1, "edge check": 1, "visitor": 1}


def test_a_refused_visitor_is_read_once_and_makes_no_click(counted):
    reading = RequestReading(SECRET, ShortDomains())
    services, dispatcher, publisher = redirect_of(GERMANY_ONLY, reading)
    event = through_edge("rules1", **{"CloudFront-Viewer-Country": "FR"})
    assert follow(services, RedirectRequest(event, "GET", "rules1", reading))["statusCode"] == 403
    dispatcher.invocation_done()
    assert [pack.clicks for pack in publisher.packs] == []
    assert {name: count.calls for name, count in counted.items()} == {"lower-casing": 1, "edge check": 1, "visitor": 1}


def test_a_plain_hits_event_is_read_only_after_the_response_for_its_click(counted):
    # Given a plain link's click recorded as the fast path records it: with its raw event
    reading = RequestReading(SECRET, ShortDomains())
    plain = Link(code="plain1", url="https://example.com/", owner="owner", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    _, dispatcher, publisher = redirect_of(plain, reading)
    dispatcher.record_click("plain1", through_edge("plain1"), "https://example.com/", plain, True)
    assert {name: count.calls for name, count in counted.items()} == {"lower-casing": 0, "edge check": 0, "visitor": 0}
    # When the response is out, its click is read once, through the edge as the rules would read it
    dispatcher.invocation_done()
    [pack] = publisher.packs
    assert [(click.code, click.country) for click in pack.clicks] == [("plain1", "DE")]
    assert {name: count.calls for name, count in counted.items()} == {"lower-casing": 1, "edge check": 1, "visitor": 1}


def test_without_the_edge_no_header_is_believed_and_the_secret_is_never_compared(counted):
    reading = RequestReading("", ShortDomains())
    services, _, _ = redirect_of(GERMANY_ONLY, reading)
    followed = RedirectRequest(through_edge("rules1"), "GET", "rules1", reading)
    assert follow(services, followed)["statusCode"] == 403  # the forged country is not believed
    assert (followed.visitor.country, str(followed.client_ip)) == ("XX", "198.51.100.7")
    assert counted["edge check"].calls == 0


def test_a_posted_form_is_read_once_and_a_large_one_not_at_all():
    reading = RequestReading()
    posted = {"body": "password=s%C3%A9same&password=second&other=", "requestContext": {"http": {"method": "POST"}}}
    form = RedirectRequest(posted, "POST", "abc", reading)
    assert form.form == {"password": "sésame", "other": ""}
    assert form.form is form.form
    assert RedirectRequest({"body": "a=" + "x" * 1100}, "POST", "abc", reading).form is None
