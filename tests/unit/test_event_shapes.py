"""One door, several fronts: the same request sent by API Gateway's HTTP API and by an
Application Load Balancer (single- and multi-value) gets the same answer from the redirect
(status, headers, body) and makes the same click (shortlink.web.events, shortlink.redirect.door)."""

from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shortlink.domains.model import ShortDomains
from shortlink.links.model import Link
from shortlink.redirect.click_dispatch import InlineDispatcher
from shortlink.redirect.door import redirect_handler
from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.redirect.services import RedirectServices
from shortlink.rules.parsing import parse_rules
from shortlink.web.events import HTTP_API, event_shape
from tests.redirect_fakes import Publisher, redirect_of

CREATED = datetime(2026, 1, 1, tzinfo=UTC)
LINKS = {
    link.code: link
    for link in (
        Link(code="plain1", url="https://example.com/plain", owner="o", created_at=CREATED),
        Link(code="keepq", url="https://example.com/q?a=1", owner="o", created_at=CREATED, forward_query=False),
        Link(code="moved", url="https://example.com/moved", owner="o", created_at=CREATED, redirect_type=301),
        Link(
            code="routed",
            url="https://example.com/everyone",
            owner="o",
            created_at=CREATED,
            rules=parse_rules({"routes": [{"languages": ["de"], "url": "https://example.com/de"}]}),
        ),
        Link(code="gone", url="https://example.com/gone", owner="o", created_at=CREATED, deleted_at=CREATED),
    )
}
CLIENT = "198.51.100.23"


@pytest.fixture(autouse=True, scope="module")
def _redirect_service() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POWERTOOLS_SERVICE_NAME", "redirect")  # the service its metrics are counted for
        yield


class Links:
    def get(self, key: str) -> Link | None:
        return LINKS.get(key)


def redirect() -> tuple[RedirectServices, InlineDispatcher, Publisher]:
    # No domain has settings: an unknown code gets the 404 page.
    return redirect_of(Links(), RequestReading("", ShortDomains()), domain_settings={})


def http_api_event(method: str, code: str, query: list[tuple[str, str]], headers: dict[str, str]) -> dict[str, Any]:
    return {
        "version": "2.0",
        "routeKey": f"{method} /{{code}}",
        "rawPath": "/" + quote(code, safe=""),
        "rawQueryString": "&".join(f"{name}={value}" for name, value in query),
        "headers": {name.lower(): value for name, value in headers.items()},
        "pathParameters": {"code": code},
        "requestContext": {"http": {"method": method, "sourceIp": CLIENT}, "domainName": "abc.execute-api.x"},
        "isBase64Encoded": False,
    }


def load_balancer_event(
    method: str, code: str, query: list[tuple[str, str]], headers: dict[str, str], multi_value: bool
) -> dict[str, Any]:
    """As an ALB sends it: the path and the query values as the client sent them, the client's
    address appended to X-Forwarded-For (after one the client forged)."""
    sent = {**headers, "X-Forwarded-For": f"203.0.113.250, {CLIENT}", "Host": "lb-1.us-east-1.elb.amazonaws.com"}
    event: dict[str, Any] = {
        "requestContext": {"elb": {"targetGroupArn": "arn:aws:elasticloadbalancing:us-east-1:1:targetgroup/r/1"}},
        "httpMethod": method,
        "path": "/" + quote(code, safe=""),
        "body": "",
        "isBase64Encoded": False,
    }
    if multi_value:
        event["multiValueHeaders"] = {name.lower(): [value] for name, value in sent.items()}
        several: dict[str, list[str]] = {}
        for name, value in query:
            several.setdefault(name, []).append(value)
        event["multiValueQueryStringParameters"] = several
    else:
        event["headers"] = {name.lower(): value for name, value in sent.items()}
        event["queryStringParameters"] = dict(query)
    return event


def plain(shaped: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    """Status, headers and body, whichever front's form `shaped` takes."""
    if "multiValueHeaders" in shaped:
        headers = {name: values[-1] for name, values in shaped["multiValueHeaders"].items()}
    else:
        headers = shaped["headers"]
    return shaped["statusCode"], headers, shaped["body"]


Click = tuple[str, str, str, str, str]


def followed(event: dict[str, Any]) -> tuple[tuple[int, dict[str, str], str], list[Click]]:
    services, dispatcher, publisher = redirect()
    shaped = redirect_handler(dispatcher, lambda: services)(event, None)
    # The visitor hash is the client address's and User-Agent's: the same visitor through either front.
    clicks = [(c.code, c.browser, c.language, c.referrer, c.visitor) for pack in publisher.packs for c in pack.clicks]
    return plain(shaped), clicks


# Query names and values as a client may send them: percent-encoded bytes, hostile ones included.
ENCODED = st.binary(max_size=12).map(lambda raw: quote(raw, safe=""))
QUERIES = st.lists(
    st.tuples(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), ENCODED), max_size=4, unique_by=lambda p: p[0]
)
HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "User-Agent": st.sampled_from(
            ["Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0", "curl/8"]
        ),
        "Accept-Language": st.sampled_from(["de-DE,de;q=0.9", "en", "q=;;,,", "*"]),
        "Referer": st.sampled_from(["https://www.news.example/a", "::", "https://x/\u00e9"]),
        "Sec-Purpose": st.sampled_from(["prefetch", "prefetch;prerender", "other"]),
    },
)


@settings(max_examples=150, deadline=None)
@given(
    method=st.sampled_from(["GET", "HEAD", "POST"]),
    code=st.sampled_from([*LINKS, "unknown1", "a/b", "\u00e9t\u00e9"]),
    query=QUERIES,
    headers=HEADERS,
    multi_value=st.booleans(),
)
def test_the_same_request_through_either_front_gets_the_same_answer_and_click(
    method: str, code: str, query: list[tuple[str, str]], headers: dict[str, str], multi_value: bool
) -> None:
    through_api = followed(http_api_event(method, code, query, headers))
    through_load_balancer = followed(load_balancer_event(method, code, query, headers, multi_value))
    assert through_load_balancer == through_api


def test_cached_links_followed_through_each_front_in_turns_keep_each_fronts_own_shape() -> None:
    # Given one redirect environment whose cache holds two plain links
    services, dispatcher, publisher = redirect()
    handler = redirect_handler(dispatcher, lambda: services)
    fronts: list[tuple[str, Any]] = [
        ("api", lambda code: http_api_event("GET", code, [], {})),
        ("single", lambda code: load_balancer_event("GET", code, [], {}, multi_value=False)),
        ("multi", lambda code: load_balancer_event("GET", code, [], {}, multi_value=True)),
    ]
    # When each is followed through the HTTP API and both load balancer modes, taking turns
    answers: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _ in range(3):
        for code in ("plain1", "moved"):
            for front, event_of in fronts:
                answers.setdefault((front, code), []).append(handler(event_of(code), None))
    # Then every answer is the HTTP API's in that front's shape, made once per link and front
    for (front, code), made in answers.items():
        assert all(answer is made[0] for answer in made), (front, code)
        assert plain(made[0]) == plain(answers["api", code][0])
        assert ("statusDescription" in made[0], "multiValueHeaders" in made[0]) == (
            front != "api",
            front == "multi",
        )
    assert answers["single", "moved"][0]["statusDescription"] == "301 Moved Permanently"
    # and each follow is a click, whichever front it came through
    assert sum(len(pack.clicks) for pack in publisher.packs) == 18
    # A follow with a query is not the cached answer, and is shaped as the front takes it
    with_query = handler(load_balancer_event("GET", "plain1", [("a", "1")], {}, multi_value=False), None)
    assert with_query["statusDescription"] == "302 Found"
    assert plain(with_query) == plain(handler(http_api_event("GET", "plain1", [("a", "1")], {}), None))


def test_a_load_balancer_gets_its_answer_with_a_status_description_and_without_a_heads_body() -> None:
    services, dispatcher, _ = redirect()
    handler = redirect_handler(dispatcher, lambda: services)
    for method, multi_value in (("GET", False), ("HEAD", True)):
        shaped = handler(load_balancer_event(method, "gone", [], {}, multi_value), None)
        assert shaped["statusDescription"] == f"410 {HTTPStatus(410).phrase}"
        assert shaped["isBase64Encoded"] is False
        assert ("multiValueHeaders" in shaped, "headers" in shaped) == (multi_value, not multi_value)
        assert (shaped["body"] == "") == (method == "HEAD")


def test_the_client_address_behind_a_load_balancer_is_the_one_it_appended() -> None:
    event = load_balancer_event("GET", "plain1", [], {}, multi_value=False)
    assert str(RedirectRequest(event, RequestReading()).client_ip) == CLIENT


@pytest.mark.parametrize("multi_value", [False, True])
def test_an_ipv6_client_behind_a_dual_stack_load_balancer_is_limited_by_its_64(multi_value: bool) -> None:
    # Given two addresses of one IPv6 /64 as a dual-stack load balancer appends them (after a forged one)
    from shortlink.access.rate_limits import client_block

    blocks = set()
    for appended in ("2001:db8:5:6:1::1", "2001:db8:5:6:ffff::2"):
        event = load_balancer_event("POST", "locked1", [], {}, multi_value)
        name, several = ("multiValueHeaders", True) if multi_value else ("headers", False)
        forwarded = f"2001:db8:bad::1, {appended}"
        event[name]["x-forwarded-for"] = [forwarded] if several else forwarded
        client = RedirectRequest(event, RequestReading()).client_ip
        # Then the client is the appended address, and both count as one client for the limits
        assert str(client) == appended
        blocks.add(client_block(str(client)))
    assert blocks == {"2001:db8:5:6::/64"}


def test_a_load_balancers_path_is_matched_against_the_redirects_routes() -> None:
    reading = RequestReading()
    cases = {
        "/": ("GET /", None),
        "/robots.txt": ("GET /robots.txt", None),
        "/.well-known/assetlinks.json": ("GET /.well-known/{file}", None),
        "/go%2Fpromo": ("GET /{code}", "go/promo"),
        "/a/b": ("", None),
        "//": ("", None),
    }
    for path, (route, code) in cases.items():
        event = {"requestContext": {"elb": {}}, "httpMethod": "GET", "path": path, "headers": {}}
        request = RedirectRequest(event, reading)
        assert (request.route, request.code) == (route, code), path
    well_known = RedirectRequest(
        {"requestContext": {"elb": {}}, "httpMethod": "GET", "path": "/.well-known/x.json", "headers": {}}, reading
    )
    assert well_known.path_parameter("file") == "x.json"


def test_header_names_are_read_in_any_spelling() -> None:
    # As `sam local start-api` passes them: a prefetch is declined whatever the spelling
    event = http_api_event("GET", "plain1", [], {"Sec-Purpose": "prefetch"})
    event["headers"] = {"Sec-Purpose": "prefetch", "User-Agent": "curl/8"}
    (status, _, _), clicks = followed(event)
    assert (status, clicks) == (503, [])
    assert event_shape(event) is HTTP_API
