"""What a load balancer's front asks beyond the event's shape (shortlink.web.events): its target
health check answered without a store read or a click, cookies and binary bodies carried back,
the status line it needs, and Lambda's 1 MB response limit behind it; and the request as its
event carries it read into the HTTP API's shape the API's and console's resolvers read
(shortlink.web.resolvers), hostile queries and headers included."""

import base64
import json
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2
from hypothesis import given, settings
from hypothesis import strategies as st
from samcli.local.apigw.exceptions import LambdaResponseParseException

from shortlink.domains.model import ShortDomains
from shortlink.links.model import Link
from shortlink.redirect.door import redirect_handler
from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.web.balancer_answers import LOAD_BALANCER_RESPONSE_LIMIT, status_description
from shortlink.web.events import load_balancer_event
from tests.redirect_fakes import redirect_of
from tools.developers.devstack import load_balancer as local_balancer

HEALTH_CHECKER = "ELB-HealthChecker/2.0"


@pytest.fixture(autouse=True, scope="module")
def _redirect_service() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POWERTOOLS_SERVICE_NAME", "redirect")
        yield


class UnreadableLinks:
    """A store a health check must never read."""

    def get(self, key: str) -> Link | None:
        raise AssertionError(f"a health check read {key!r}")


def health_check_event(multi_value: bool, path: str = "/health") -> dict[str, Any]:
    """As the load balancer sends it: its User-Agent, no other header."""
    event: dict[str, Any] = {
        "requestContext": {"elb": {"targetGroupArn": "arn:aws:elasticloadbalancing:us-east-1:1:targetgroup/r/1"}},
        "httpMethod": "GET",
        "path": path,
        "body": "",
        "isBase64Encoded": False,
    }
    if multi_value:
        return event | {"multiValueHeaders": {"user-agent": [HEALTH_CHECKER]}, "multiValueQueryStringParameters": {}}
    return event | {"headers": {"user-agent": HEALTH_CHECKER}, "queryStringParameters": {}}


@pytest.mark.parametrize("multi_value", [False, True])
def test_a_target_health_check_is_answered_200_without_a_store_read_or_a_click(multi_value: bool) -> None:
    services, dispatcher, publisher = redirect_of(UnreadableLinks(), RequestReading("", ShortDomains()), {})
    shaped = redirect_handler(dispatcher, lambda: services)(health_check_event(multi_value), None)
    assert (shaped["statusCode"], shaped["statusDescription"], shaped["body"]) == (200, "200 OK", "ok")
    assert publisher.packs == []


def test_through_the_http_api_the_health_path_is_a_follow_of_a_reserved_slug() -> None:
    # API Gateway routes no /health: the path is GET /{code}, and no link can be named so
    from shortlink.links.slugs import RESERVED_SLUGS

    event = {"routeKey": "GET /{code}", "pathParameters": {"code": "health"}, "headers": {"host": "sho.rt"}}
    assert RedirectRequest(event, RequestReading()).route == "GET /{code}"
    assert "health" in RESERVED_SLUGS


def shaped_by(multi_value: bool, answered: dict[str, Any], method: str = "GET") -> dict[str, Any]:
    return load_balancer_event((), multi_value).response(answered, method)


def test_several_cookies_reach_the_browser_in_either_mode() -> None:
    cookies = ["session=a; HttpOnly; Secure", "challenge=; Max-Age=0", "third=c"]
    answered = {"statusCode": 303, "headers": {"Location": "/console"}, "body": "", "cookies": cookies}
    several = shaped_by(True, answered)["multiValueHeaders"]
    assert several["set-cookie"] == cookies
    single = shaped_by(False, answered)["headers"]
    # One value a name: each cookie under its own spelling of Set-Cookie (names are case-insensitive)
    sent = [value for name, value in single.items() if name.lower() == "set-cookie"]
    assert sent == cookies
    assert len({name for name in single if name.lower() == "set-cookie"}) == 3


def test_a_binary_body_stays_base64_and_a_heads_answer_has_none() -> None:
    answered = {
        "statusCode": 200,
        "headers": {"content-type": "image/png"},
        "body": "iVBORw0K",
        "isBase64Encoded": True,
    }
    assert (shaped_by(False, answered)["isBase64Encoded"], shaped_by(False, answered)["body"]) == (True, "iVBORw0K")
    head = shaped_by(True, answered, "HEAD")
    assert (head["isBase64Encoded"], head["body"]) == (False, "")


def test_the_status_line_names_the_code_and_its_phrase() -> None:
    assert [status_description(code) for code in (302, 404, 413, 599)] == [
        "302 Found",
        "404 Not Found",
        "413 Content Too Large",
        "599",
    ]


def body_of_size(json_bytes: int, multi_value: bool) -> dict[str, Any]:
    """An answer whose shaped JSON is exactly `json_bytes` long."""
    answered = {"statusCode": 200, "headers": {"content-type": "text/csv"}, "body": ""}
    empty = len(json.dumps(shaped_by(multi_value, answered)).encode())
    return answered | {"body": "x" * (json_bytes - empty)}


@pytest.mark.parametrize("multi_value", [False, True])
def test_an_answer_larger_than_the_load_balancer_takes_is_a_413_naming_the_limit(multi_value: bool) -> None:
    fits = shaped_by(multi_value, body_of_size(LOAD_BALANCER_RESPONSE_LIMIT, multi_value))
    assert fits["statusCode"] == 200
    assert len(json.dumps(fits).encode()) == LOAD_BALANCER_RESPONSE_LIMIT
    refused = shaped_by(multi_value, body_of_size(LOAD_BALANCER_RESPONSE_LIMIT + 1, multi_value))
    assert (refused["statusCode"], refused["statusDescription"]) == (413, "413 Content Too Large")
    assert json.loads(refused["body"])["error"] == "response_too_large"
    assert "1,000,000 bytes" in json.loads(refused["body"])["message"]
    assert ("multiValueHeaders" in refused) == multi_value
    # Escaped characters count as the JSON carries them: 6 bytes each
    escaped = {"statusCode": 200, "headers": {}, "body": "\u00e9" * (LOAD_BALANCER_RESPONSE_LIMIT // 6 + 1)}
    assert shaped_by(multi_value, escaped)["statusCode"] == 413


def test_the_local_load_balancer_refuses_what_a_load_balancer_refuses() -> None:
    good = {"statusCode": 200, "statusDescription": "200 OK", "isBase64Encoded": False, "headers": {}, "body": "x"}
    assert local_balancer.answer_of(json.dumps(good))[0] == 200
    for broken in (
        {key: value for key, value in good.items() if key != "isBase64Encoded"},
        {key: value for key, value in good.items() if key != "headers"},
        good | {"body": "x" * LOAD_BALANCER_RESPONSE_LIMIT},
    ):
        with pytest.raises(LambdaResponseParseException):
            local_balancer.answer_of(json.dumps(broken))


# Query names and values as a client may send them: percent-encoded bytes (non-UTF-8 ones too),
# '+', names repeated; headers with hostile values and repeated names.
RAW_VALUE = st.one_of(
    st.binary(max_size=8).map(lambda raw: quote(raw, safe="")),
    st.sampled_from(["a+b", "%2B", "%FF%FE", "%", "%zz", "=", "x=y", ""]),
)
QUERY = st.lists(st.tuples(st.sampled_from(["q", "utm_source", "a b", "%61", "x+y"]), RAW_VALUE), max_size=5)
HEADER_VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12)
# Cookies well formed, names distinct: SAM's local HTTP API re-serializes them (API Gateway passes them on).
COOKIE = st.from_regex(r"a=[a-z0-9%]{0,5}(; ?b=[a-z0-9]{0,5})?(; ?c=[a-z0-9]{0,5})?", fullmatch=True)
HEADERS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["Accept-Language", "X-Thing", "Referer", "Authorization"]), HEADER_VALUE),
        st.tuples(st.just("Cookie"), COOKIE),
    ),
    max_size=4,
)
CLIENT = "198.51.100.7"


def events_of(raw_query: str, headers: list[tuple[str, str]], multi_value: bool) -> tuple[dict[str, Any], ...]:
    """The events the local stack's two fronts send for one request (`make dev` and `FRONT=alb
    make dev`): the HTTP API's (SAM's event constructor over werkzeug) and the load balancer's."""
    import flask
    from samcli.lib.providers.provider import Api

    from tools.developers.devstack.http_api import HttpApiService
    from tools.developers.devstack.runner import as_api_gateway_sends

    fronts = {"lambda_runner": SimpleNamespace(is_debugging=lambda: False), "port": 3000, "host": "127.0.0.1"}
    http_api = HttpApiService(api=Api(), **fronts)
    balancer = local_balancer.load_balancer_service(multi_value, "us-east-1")(api=Api(), **fronts)
    route = SimpleNamespace(function_name="ManageFunction")
    environ = {"REMOTE_ADDR": CLIENT, "QUERY_STRING": raw_query}
    with flask.Flask(__name__).test_request_context("/links", headers=headers, environ_base=environ):
        through_api = http_api._generate_lambda_event(flask.request, route, "GET", "/links")
        through_balancer = balancer._generate_lambda_event(flask.request, route, "GET", "/links")
    return as_api_gateway_sends(through_api), through_balancer


def read_by_resolvers(event: dict[str, Any]) -> dict[str, Any]:
    request = APIGatewayProxyEventV2(event)
    forwarded = ("x-forwarded-for", "x-forwarded-proto", "x-forwarded-port", "x-amzn-trace-id")
    return {
        "method": request.http_method,
        "path": request.path,
        "query": request.query_string_parameters or {},
        "headers": {name: value for name, value in request.headers.items() if name not in forwarded},
        "cookies": request.cookies or [],
        "host": request.request_context.domain_name,
        "body": request.decoded_body,
    }


@settings(max_examples=120, deadline=None)
@given(query=QUERY, headers=HEADERS, multi_value=st.booleans())
def test_the_resolvers_read_the_same_request_from_either_front(
    query: list[tuple[str, str]], headers: list[tuple[str, str]], multi_value: bool
) -> None:
    if not multi_value:  # one value a name: the load balancer passes the last, API Gateway all
        query = list(dict(query).items())
    # werkzeug joins a repeated header before either front sees it: one of each name is sent
    headers = list({name: (name, value) for name, value in headers}.values())
    raw_query = "&".join(f"{name}={value}" for name, value in query)
    through_api, through_balancer = events_of(raw_query, [("Host", "sho.rt"), *headers], multi_value)
    converted = load_balancer_event((), multi_value).http_api_event(through_balancer)
    assert read_by_resolvers(converted) == read_by_resolvers(through_api)
    assert converted["requestContext"]["http"]["sourceIp"] == CLIENT


def test_the_client_address_is_the_one_the_load_balancer_appended_never_the_clients_own() -> None:
    forged = [("Host", "sho.rt"), ("X-Forwarded-For", "10.9.9.9, 192.0.2.1")]
    event = local_balancer.load_balancer_event("GET", "/", "", forged, b"", CLIENT, False, "arn:tg", base64_body=False)
    assert event["headers"]["x-forwarded-for"] == f"10.9.9.9, 192.0.2.1, {CLIENT}"
    converted = load_balancer_event((), False).http_api_event(event)
    assert converted["requestContext"]["http"]["sourceIp"] == CLIENT
    from shortlink.web.addresses import client_ip

    assert str(client_ip(event, "")) == CLIENT


def test_a_binary_body_reaches_the_resolvers_as_sent() -> None:
    raw = bytes(range(256))
    event = local_balancer.load_balancer_event(
        "POST", "/links/import", "", [("Host", "sho.rt")], raw, CLIENT, False, "arn:tg", base64_body=True
    )
    converted = load_balancer_event((), False).http_api_event(event)
    assert converted["isBase64Encoded"] is True
    assert base64.b64decode(converted["body"]) == raw
