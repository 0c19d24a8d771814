"""Visitor-controlled input on every public route, as API Gateway hands it to the handlers: the
query string (invalid percent-escapes, bytes that are not UTF-8), the path, Referer, User-Agent,
Accept-Language, Cookie, forms and raw bodies. Never a 5xx, and nothing half-written: a refused
or failed request takes no follow from a link's budget (issue 28 item 1 and class a)."""

import base64
import json
import re
from typing import Any
from urllib.parse import parse_qsl, quote_from_bytes, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shortlink.access.passwords import hash_password
from tests.events import bearer, http_event

# The reproducers: each made a link answer 500.
NOT_UTF8 = ["a=%ff", "%ff=1", "a=%c3", "a=%80", "a=%e2%82", "a=%ed%a0%80", "utm_campaign=%ff"]
PASSWORD = "open sesame"
pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest
BUDGET = 60  # more follows than the examples below make


def as_api_gateway_sends(event: dict[str, Any], raw_query: str) -> dict[str, Any]:
    """`event` with the visitor's query: raw as sent, and parsed as API Gateway (and SAM) parse it
    (undecodable bytes replaced, repeated names joined with commas)."""
    event["rawQueryString"] = raw_query
    parsed: dict[str, list[str]] = {}
    for name, value in parse_qsl(raw_query, keep_blank_values=True, errors="replace"):
        parsed.setdefault(name, []).append(value)
    event.pop("queryStringParameters", None)
    if parsed:
        event["queryStringParameters"] = {name: ",".join(values) for name, values in parsed.items()}
    return event


def visit(
    handlers: Any,
    route: str,
    path: str,
    raw_query: str = "",
    headers: dict[str, str] | None = None,
    cookies: list[str] | None = None,
    body: bytes | None = None,
    path_parameters: dict[str, str] | None = None,
) -> dict[str, Any]:
    method, _, template_path = route.partition(" ")
    event = http_event(method, path, route=template_path, path_parameters=path_parameters, headers=headers)
    if body is not None:
        event["body"], event["isBase64Encoded"] = base64.b64encode(body).decode(), True
    if cookies:
        event["cookies"] = cookies
    function = "ConsoleFunction" if template_path.startswith("/console") else "RedirectFunction"
    answer: dict[str, Any] = handlers[function](as_api_gateway_sends(event, raw_query))
    return answer


@pytest.fixture
def owner_key(aws) -> str:
    return str(aws.new_api_key())


@pytest.fixture
def links(aws, handlers, api, owner_key) -> dict[str, str]:
    """A link of each kind the redirect treats differently: plain, forwarding the query with UTM
    fields, with a budget of follows, behind a password (imported with a cheap hash), with rules;
    all `owner_key`'s."""
    key = owner_key
    codes = {
        "plain": api.new_link(key)["code"],
        "utm": api.new_link(key, utm={"campaign": "spring", "source": "news"})["code"],
        "budget": api.new_link(key, max_clicks=BUDGET)["code"],
        "rules": api.new_link(
            key,
            rules={"routes": [{"languages": ["de"], "url": "https://example.de/"}], "deny": {"devices": ["bot"]}},
        )["code"],
    }
    record = {"url": "https://example.com/locked", "password_hash": hash_password(PASSWORD, iterations=1_000)}
    event = http_event("POST", "/links/import", headers=bearer(key), body={"links": [record]})
    report = json.loads(handlers["TransferFunction"](event)["body"])
    assert report["created"] == 1, report
    codes["password"] = report["results"][0]["code"]
    return codes


def follows_left(handlers: Any, code: str) -> int:
    """How many follows the budget still allows: counted by following until 410."""
    left = 0
    while (answer := visit(handlers, "GET /{code}", f"/{code}", path_parameters={"code": code}))["statusCode"] == 302:
        left += 1
        assert left <= BUDGET
    assert answer["statusCode"] == 410
    return left


@pytest.mark.parametrize("query", NOT_UTF8)
@pytest.mark.parametrize("route", ["GET /{code}", "HEAD /{code}"])
def test_a_query_that_is_not_utf8_is_forwarded_as_sent(aws, handlers, links, route, query):
    for kind in ("plain", "utm", "budget", "rules"):
        code = links[kind]
        answer = visit(handlers, route, f"/{code}", query, path_parameters={"code": code})
        assert answer["statusCode"] == 302, (kind, answer)
        location = answer["headers"]["Location"]
        if kind != "utm" or not query.startswith("utm_campaign="):  # the link's own value wins
            assert location.lower().endswith(query.lower()), location
    assert follows_left(handlers, links["budget"]) == BUDGET - (route == "GET /{code}")


@pytest.mark.parametrize("query", NOT_UTF8)
def test_an_unlock_with_a_query_that_is_not_utf8_goes_to_the_destination_with_it(aws, handlers, links, query):
    code = links["password"]
    form = urlencode({"password": PASSWORD}).encode()
    answer = visit(
        handlers,
        "POST /{code}",
        f"/{code}",
        query,
        headers={"content-type": "application/x-www-form-urlencoded"},
        body=form,
        path_parameters={"code": code},
    )
    assert answer["statusCode"] == 303, answer
    assert answer["headers"]["Location"].lower() == f"https://example.com/locked?{query}".lower()


# A query: segments of percent-encoded bytes, or of raw characters including broken escapes.
RAW_QUERY_CHARACTERS = st.sampled_from([*"a=&;+%fFzZ09/?#.~ \"'<>\\", "%ff", "%c3", "%e2%82", "%%", "ä", "\u202e"])
QUERY_SEGMENT = st.one_of(
    st.builds(lambda name, value: f"{quote_from_bytes(name)}={quote_from_bytes(value)}", st.binary(), st.binary()),
    st.lists(RAW_QUERY_CHARACTERS, max_size=12).map("".join),
)
QUERIES = st.lists(QUERY_SEGMENT, max_size=5).map("&".join)
HEADER_TEXT = st.text(max_size=80)
VISITOR_HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "referer": HEADER_TEXT,
        "user-agent": HEADER_TEXT | st.sampled_from(["Slackbot-LinkExpanding 1.0", "Googlebot/2.1", ""]),
        "accept-language": HEADER_TEXT
        | st.sampled_from(["de;q=NaN", "de;q=1e999", "de;q=\u0660.\u0665", "*;q=-1", ","]),
        "content-type": st.sampled_from(["application/x-www-form-urlencoded", "text/plain", "multipart/form-data"]),
        "origin": st.sampled_from(["https://sho.rt", "null", "https://evil.example"]) | HEADER_TEXT,
        "x-forwarded-for": HEADER_TEXT,
        "cloudfront-viewer-country": HEADER_TEXT,
        "cookie": HEADER_TEXT,
    },
)
COOKIES = st.lists(st.text(max_size=60) | st.sampled_from(["console_session=", "console_session=a.b.c"]), max_size=3)
BODIES = (
    st.none()
    | st.binary(max_size=300)
    | st.lists(QUERY_SEGMENT, max_size=8).map(lambda parts: "&".join(parts).encode())
)
PATH_TEXT = st.text(max_size=40)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    kind=st.sampled_from(["plain", "utm", "budget", "rules", "password", "unknown", "path"]),
    method=st.sampled_from(["GET", "HEAD", "POST"]),
    raw_query=QUERIES,
    headers=VISITOR_HEADERS,
    cookies=COOKIES,
    body=BODIES,
    path=PATH_TEXT,
)
def test_the_redirect_never_answers_5xx_and_takes_no_follow_it_does_not_answer(
    aws, handlers, links, budget_followed, kind, method, raw_query, headers, cookies, body, path
):
    code = {"unknown": "nosuchcode", "path": path}.get(kind, links.get(kind, ""))
    answer = visit(
        handlers,
        f"{method} /{{code}}",
        f"/{code}",
        raw_query,
        headers,
        cookies,
        body if method == "POST" else None,
        {"code": code},
    )
    assert answer["statusCode"] < 500, answer
    if kind == "budget" and method == "GET" and answer["statusCode"] == 302:
        budget_followed.append(raw_query)


@pytest.fixture
def budget_followed(handlers, links):
    """The follows of the budget link answered with its redirect, across a property test's
    examples; afterwards the budget must have lost exactly those (no failed request took one)."""
    followed: list[str] = []
    yield followed
    assert follows_left(handlers, links["budget"]) == BUDGET - len(followed)


def test_a_sequence_of_hostile_follows_takes_only_the_follows_answered(aws, handlers, links):
    code = links["budget"]
    answered = 0
    for query in [*NOT_UTF8, "a=" + "x" * 9000, "%", "&&&", "=%zz"]:
        for method in ("GET", "HEAD", "POST"):
            answer = visit(handlers, f"{method} /{{code}}", f"/{code}", query, path_parameters={"code": code})
            assert answer["statusCode"] < 500, answer
            answered += method == "GET" and answer["statusCode"] == 302
    assert follows_left(handlers, code) == BUDGET - answered


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    route=st.sampled_from(["GET /", "GET /robots.txt", "GET /.well-known/{file}"]),
    file=PATH_TEXT | st.sampled_from(["apple-app-site-association", "assetlinks.json"]),
    raw_query=QUERIES,
    headers=VISITOR_HEADERS,
    cookies=COOKIES,
)
def test_a_domains_own_addresses_never_answer_5xx(aws, handlers, route, file, raw_query, headers, cookies):
    path = route.partition(" ")[2].replace("{file}", file)
    parameters = {"file": file} if "{file}" in route else None
    answer = visit(handlers, route, path, raw_query, headers, cookies, path_parameters=parameters)
    assert answer["statusCode"] < 500, answer


CONSOLE_PATHS = st.sampled_from(
    [
        "/console",
        "/console/sign-in",
        "/console/sign-out",
        "/console/links",
        "/console/links/new",
        "/console/links/bulk",
        "/console/links/bulk/changes",
        "/console/links/{code}",
        "/console/links/{code}/edit",
        "/console/links/{code}/stats.csv",
        "/console/links/{code}/qr.png",
        "/console/links/{code}/delete",
        "/console/links/{code}/restore",
        "/console/overview",
        "/console/overview/stats.csv",
        "/console/keys",
        "/console/keys/nosuchkey/revoke",
        "/console/static/console.css",
        "/console/static/../app.py",
    ]
) | PATH_TEXT.map(lambda text: f"/console/{text}")
# Query parameters and form fields the console's pages read, with hostile values.
CONSOLE_FIELD_NAMES = (

        "range", "granularity", "from", "to", "dimension", "cursor", "q", "tag", "utm_campaign", "domain",
        "url", "slug", "title", "tags", "redirect_type", "max_clicks", "expires_at", "valid_from",
        "expires_at_local", "password", "variant_0_url", "variant_0_weight", "variant_1_url",
        "variant_1_weight", "route_0_url", "route_0_time_from", "route_0_time_to", "route_0_days",
        "allow_ips", "lines", "name", "scopes", "expires_in_days", "api_key",
        "selected", "action", "add_tags", "remove_tags", "changed",
)  # fmt: skip
CONSOLE_FIELDS = st.sampled_from(CONSOLE_FIELD_NAMES)
# The fields a person types a number into.
NUMBER_FIELDS = ("redirect_type", "max_clicks", "variant_0_weight", "variant_1_weight")
HOSTILE_VALUES = st.sampled_from(
    ["\u0663", "\u00b2", "\u2462", "1e3", "NaN", "-1", "9" * 30, "%ff", "https://a.example", "24:00", "", " "]
) | st.text(max_size=30)
CONSOLE_FORMS = st.dictionaries(CONSOLE_FIELDS, HOSTILE_VALUES, max_size=6)


@pytest.fixture
def console_session(aws, handlers, links, owner_key) -> tuple[str, str]:
    """A signed-in session of the key that owns `links`: its cookie and its CSRF token."""
    headers = {"origin": "https://sho.rt", "content-type": "application/x-www-form-urlencoded"}
    form = urlencode({"api_key": owner_key}).encode()
    answer = visit(handlers, "POST /console/{proxy+}", "/console/sign-in", headers=headers, body=form)
    cookie = next(cookie.split(";")[0] for cookie in answer["cookies"] if cookie.startswith("console_session="))
    page = visit(handlers, "GET /console", "/console", cookies=[cookie])["body"]
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found, page
    return cookie, found.group(1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    method=st.sampled_from(["GET", "POST"]),
    path=CONSOLE_PATHS,
    signed_in=st.booleans(),
    fields=CONSOLE_FORMS,
    raw_query=QUERIES,
    headers=VISITOR_HEADERS,
    cookies=COOKIES,
    body=BODIES,
)
def test_the_console_never_answers_5xx(
    aws, handlers, links, console_session, method, path, signed_in, fields, raw_query, headers, cookies, body
):
    path = path.replace("{code}", links["plain"])
    route = "GET /console" if method == "GET" and path == "/console" else f"{method} /console/{{proxy+}}"
    proxy = {"proxy": path.removeprefix("/console/")} if "{proxy+}" in route else None
    if signed_in:  # past the session check: the page reads the query or the form
        cookie, csrf = console_session
        cookies, raw_query = [cookie], urlencode(fields) if method == "GET" else raw_query
        headers = {**headers, "origin": "https://sho.rt", "content-type": "application/x-www-form-urlencoded"}
        body = urlencode({"csrf": csrf, **fields}).encode()
    answer = visit(handlers, route, path, raw_query, headers, cookies, body if method == "POST" else None, proxy)
    assert answer["statusCode"] < 500, answer


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(
        [
            "/console/links",
            "/console/links/{code}",
            "/console/links/bulk",
            "/console/links/bulk/changes",
            "/console/keys",
        ]
    ),
    numbers=st.fixed_dictionaries(dict.fromkeys(NUMBER_FIELDS, HOSTILE_VALUES)),
    fields=st.fixed_dictionaries({}, optional=dict.fromkeys(CONSOLE_FIELD_NAMES, HOSTILE_VALUES)),
)
def test_the_consoles_forms_never_answer_5xx(aws, handlers, links, console_session, path, numbers, fields):
    cookie, csrf = console_session
    headers = {"origin": "https://sho.rt", "content-type": "application/x-www-form-urlencoded"}
    given = {"url": "https://example.com/f", "variant_0_url": "https://a.example", **numbers, **fields}
    form = urlencode({"csrf": csrf, **given}).encode()
    path = path.replace("{code}", links["plain"])
    answer = visit(handlers, "POST /console/{proxy+}", path, "", headers, [cookie], form, {"proxy": path[9:]})
    assert answer["statusCode"] < 500, answer


def test_a_console_form_of_more_than_1000_fields_is_refused_with_413(aws, handlers):
    fields = urlencode([(f"f{index}", "x") for index in range(1_001)]).encode()
    headers = {"origin": "https://sho.rt", "content-type": "application/x-www-form-urlencoded"}
    for path in ("/console/sign-in", "/console/links"):
        answer = visit(handlers, "POST /console/{proxy+}", path, headers=headers, body=fields)
        assert answer["statusCode"] == 413, answer
        assert "at most 1000 fields" in answer["body"]


def test_a_console_form_that_is_not_utf8_is_refused_with_400(aws, handlers):
    headers = {"origin": "https://sho.rt", "content-type": "application/x-www-form-urlencoded"}
    answer = visit(handlers, "POST /console/{proxy+}", "/console/sign-in", headers=headers, body=b"api_key=\xff\xfe")
    assert answer["statusCode"] == 400, answer
    assert "UTF-8" in answer["body"]


# The query's whole numbers are ASCII digits (shortlink.numbers.ascii_digits_only before pydantic,
# whose own int takes "+3", "3_0", "3.0" and other scripts' digits), then range-checked.
@pytest.mark.parametrize(
    "text",
    ["\u0663", "\u00b2", "\u2462", "1e1", "\uff13", "9" * 5000, "NaN", "-Infinity", "+3", "3_0", "3.0", " 3", "0x3"],
)
@pytest.mark.parametrize(("path", "parameter"), [("/links", "limit"), ("/links/{code}/qr", "scale")])
def test_the_apis_number_parameters_are_ascii_digits(aws, handlers, links, path, parameter, text):
    code = links["plain"]
    event = http_event(
        "GET",
        path.replace("{code}", code),
        route=path,
        path_parameters={"code": code} if "{code}" in path else None,
        headers=bearer(aws.new_api_key()),
        query={parameter: text},
    )
    answer = handlers["ManageFunction"](event)
    assert answer["statusCode"] == 422, answer
    message = json.loads(answer["body"])["message"]
    assert message.startswith(f"{parameter}: "), message
    assert "whole number in the digits 0-9" in message, message
