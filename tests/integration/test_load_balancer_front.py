"""One door, two fronts, through the real handlers against moto: the same request sent by API
Gateway's HTTP API and by an Application Load Balancer (single- and multi-value) gets the same
answer (status, headers, body) from the API's functions, the docs' and the console's, hostile
queries included; and every route's answer behind the load balancer stays within Lambda's 1 MB
(a 413 naming the limit where it would not). The redirect's side: tests/unit/test_event_shapes.py."""

import base64
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shortlink.web import balancer_answers, events
from tests.events import bearer, http_event
from tools.developers.devstack.load_balancer import load_balancer_event

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest
HOST = "sho.rt"
Plain = tuple[int, dict[str, str], bytes]


def load_balancer_event_of(event: dict[str, Any], multi_value: bool) -> dict[str, Any]:
    """The event a load balancer sends for the request `event` (an HTTP API's) was made of."""
    headers = list(event["headers"].items())
    if event.get("cookies"):
        headers.append(("cookie", "; ".join(event["cookies"])))
    raw = event.get("body") or ""
    body = base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode()
    return load_balancer_event(
        event["requestContext"]["http"]["method"],
        quote(event["rawPath"]),
        event["rawQueryString"],
        headers,
        body,
        event["requestContext"]["http"]["sourceIp"],
        multi_value,
        "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/t/1",
        base64_body=bool(event.get("isBase64Encoded")),
    )


def plain(shaped: dict[str, Any]) -> Plain:
    """Status, headers (lower-case names; cookies as one list) and body bytes, whichever front's
    form `shaped` takes."""
    several: dict[str, list[str]] = {}
    for name, values in (shaped.get("multiValueHeaders") or {}).items():
        several.setdefault(name.lower(), []).extend(values)
    for name, value in (shaped.get("headers") or {}).items():
        several.setdefault(name.lower(), []).append(value)
    several.setdefault("set-cookie", []).extend(shaped.get("cookies") or [])
    headers = {name: "\n".join(values) for name, values in several.items() if values}
    body = shaped.get("body") or ""
    return shaped["statusCode"], headers, base64.b64decode(body) if shaped.get("isBase64Encoded") else body.encode()


def through_each_front(handler: Callable[..., Any], event: dict[str, Any]) -> list[Plain]:
    """The answers to `event` sent by the HTTP API, then by a load balancer in either mode."""
    answers = [plain(handler(json.loads(json.dumps(event))))]
    for multi_value in (False, True):
        shaped = handler(load_balancer_event_of(event, multi_value))
        assert shaped["statusDescription"].startswith(f"{shaped['statusCode']} ")
        assert ("multiValueHeaders" in shaped) == multi_value
        answers.append(plain(shaped))
    return answers


def same_through_each_front(handler: Callable[..., Any], event: dict[str, Any]) -> Plain:
    first, *others = through_each_front(handler, event)
    for other in others:
        assert other == first
    return first


def api_get(path: str, key: str, query: str = "") -> dict[str, Any]:
    """GET `path?query` as API Gateway sends it: the query as sent, and its values decoded (several
    of one name joined by commas)."""
    event = http_event("GET", path, headers={**bearer(key), "host": HOST})
    values: dict[str, list[str]] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        values.setdefault(name, []).append(value)
    event["rawQueryString"] = query
    event["queryStringParameters"] = {name: ",".join(each) for name, each in values.items()}
    return event


@pytest.fixture
def linked(aws: Any, api: Any) -> tuple[str, str]:
    """A key and a link of it."""
    return api.key, api.new_link(tags=["a"])["code"]


# The API's reads, each by its function: every answer the same through either front.
READS = [
    ("ManageFunction", "/links/{code}", ""),
    ("ManageFunction", "/links", "limit=5&tag=a"),
    ("ManageFunction", "/links/{code}/stats", "format=csv&granularity=day"),
    ("ManageFunction", "/stats", ""),
    ("ManageFunction", "/links/{code}/qr", "format=png&scale=3"),
    ("ManageFunction", "/links/{code}/qr", ""),
    ("TransferFunction", "/links/export", "format=csv"),
    ("TransferFunction", "/links/export", "format=stats-csv"),
    ("KeysFunction", "/keys", ""),
    ("KeysFunction", "/audit", "limit=2"),
    ("DocsFunction", "/openapi.json", ""),
    ("ManageFunction", "/links/nosuchcode", ""),
    ("ManageFunction", "/links/{code}/stats", "granularity=fortnight"),
]


def test_the_apis_answers_are_the_same_through_either_front(handlers: Any, linked: tuple[str, str]) -> None:
    key, code = linked
    for function, path, query in READS:
        status, _, _ = same_through_each_front(handlers[function], api_get(path.format(code=code), key, query))
        assert status in (200, 404, 422), (path, query)
    # A write that answers the same each time (an edit to the same values), and refusals
    edit = http_event("PATCH", f"/links/{code}", headers={**bearer(key), "host": HOST}, body={"title": "T"})
    assert same_through_each_front(handlers["ManageFunction"], edit)[0] == 200
    anonymous = http_event("GET", "/links", headers={"host": HOST})
    assert same_through_each_front(handlers["ManageFunction"], anonymous)[0] == 401
    not_json = http_event("POST", "/links", headers={**bearer(key), "host": HOST}, body="{not json")
    assert same_through_each_front(handlers["CreateFunction"], not_json)[0] in (400, 422)


def test_a_link_is_created_edited_and_deleted_through_a_load_balancer(handlers: Any, api: Any) -> None:
    headers = {**bearer(api.key), "host": HOST}
    create = http_event("POST", "/links", headers=headers, body={"url": "https://example.com/lb", "slug": "via-lb"})
    shaped = handlers["CreateFunction"](load_balancer_event_of(create, multi_value=False))
    assert (shaped["statusCode"], shaped["statusDescription"]) == (201, "201 Created")
    assert json.loads(shaped["body"])["short_url"] == f"https://{HOST}/via-lb"
    delete = http_event("DELETE", "/links/via-lb", headers=headers)
    assert handlers["ManageFunction"](load_balancer_event_of(delete, multi_value=True))["statusCode"] == 204
    assert api.follow("via-lb").status == 410  # removed by its owner


# Hostile queries as clients send them: percent-encoded bytes (not UTF-8 too), '+', '=' in
# values, names repeated, names that are not the route's.
RAW_VALUE = st.one_of(
    st.binary(max_size=6).map(lambda raw: quote(raw, safe="")),
    st.sampled_from(["a+b", "%2B", "%FF", "%", "%zz", "=", "1e3", "\u0661", "-1", "5"]),
)
QUERY = st.lists(st.tuples(st.sampled_from(["limit", "tag", "cursor", "format", "x"]), RAW_VALUE), max_size=4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=QUERY)
def test_a_hostile_query_gets_the_same_answer_through_either_front(
    handlers: Any, linked: tuple[str, str], query: list[tuple[str, str]]
) -> None:
    key, _ = linked
    # One value a name: with more, a single-value load balancer passes only the last (the docs say so)
    raw = "&".join(f"{name}={value}" for name, value in dict(query).items())
    status, _, _ = same_through_each_front(handlers["ManageFunction"], api_get("/links", key, raw))
    assert status < 500


def test_the_consoles_sign_in_and_pages_are_the_same_through_either_front(
    handlers: Any, linked: tuple[str, str]
) -> None:
    key, code = linked
    console = handlers["ConsoleFunction"]
    page = http_event("GET", "/console/sign-in", headers={"host": HOST}, route="/console/{proxy+}")
    assert same_through_each_front(console, page)[0] == 200
    form = {"host": HOST, "origin": f"https://{HOST}", "content-type": "application/x-www-form-urlencoded"}
    sign_in = http_event("POST", "/console/sign-in", headers=form, body=f"api_key={key}", route="/console/{proxy+}")
    signed = through_each_front(console, sign_in)
    # Each front's sign-in its own session: the same answer but for the session's cookie
    assert {(status, headers["location"]) for status, headers, _ in signed} == {(303, "/console")}
    sessions = [headers["set-cookie"] for _, headers, _ in signed]
    assert all(cookie.startswith("console_session=") for cookie in sessions)
    session = sessions[0].split(";")[0].removeprefix("console_session=")
    for path in ("/console", "/console/links/new", f"/console/links/{code}"):
        event = http_event("GET", path, headers={"host": HOST}, route="/console/{proxy+}")
        event["cookies"] = [f"console_session={session}"]
        status, _, body = same_through_each_front(console, event)
        assert status == 200, (path, body[:200])


# Every route whose answer grows with what is asked or stored, and the pages: behind a load
# balancer each answer over the limit is a 413 naming it (here the limit made small so that
# each is over it), and the same request through the HTTP API gets its answer.
ROUTES = [
    ("ManageFunction", "/links/{code}/qr", "format=png&scale=40"),
    ("ManageFunction", "/links/{code}/qr", "format=svg&scale=40"),
    ("ManageFunction", "/links", "limit=100"),
    ("ManageFunction", "/links/{code}/stats", "format=csv"),
    ("ManageFunction", "/stats", "format=csv"),
    ("TransferFunction", "/links/export", "format=json"),
    ("TransferFunction", "/links/export", "format=csv"),
    ("TransferFunction", "/links/export", "format=stats-csv"),
    ("KeysFunction", "/audit", "limit=100"),
    ("DocsFunction", "/openapi.json", ""),
    ("DocsFunction", "/docs", ""),
]


def test_every_route_behind_a_load_balancer_keeps_within_its_response_limit(
    handlers: Any, linked: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    key, code = linked
    monkeypatch.setattr(balancer_answers, "LOAD_BALANCER_RESPONSE_LIMIT", 200)
    monkeypatch.setattr(events, "LARGE_BODY_CHARS", 10)
    for function, path, query in ROUTES:  # one test, not one each: the account's setup is most of a test's time
        event = api_get(path.format(code=code), key, query)
        assert handlers[function](json.loads(json.dumps(event)))["statusCode"] == 200, (path, query)
        for multi_value in (False, True):
            refused = handlers[function](load_balancer_event_of(event, multi_value))
            assert refused["statusCode"] == 413, (path, query, multi_value)
            error = json.loads(refused["body"])
            assert error["error"] == "response_too_large"
            assert "200 bytes a load balancer takes" in error["message"]


def test_the_largest_qr_code_fits_and_the_docs_page_fits_gzipped(handlers: Any, linked: tuple[str, str]) -> None:
    key, code = linked
    for image_format in ("png", "svg"):
        event = api_get(f"/links/{code}/qr", key, f"format={image_format}&scale=40")
        shaped = handlers["ManageFunction"](load_balancer_event_of(event, multi_value=False))
        assert shaped["statusCode"] == 200
        assert len(json.dumps(shaped).encode()) <= balancer_answers.LOAD_BALANCER_RESPONSE_LIMIT
    # Swagger UI inlined is over 1 MB: a browser (which accepts gzip) gets it, a client that does not a 413
    page = http_event("GET", "/docs", headers={"host": HOST})
    assert handlers["DocsFunction"](load_balancer_event_of(page, multi_value=False))["statusCode"] == 413
    page["headers"]["accept-encoding"] = "gzip, deflate, br"
    shaped = handlers["DocsFunction"](load_balancer_event_of(page, multi_value=False))
    assert (shaped["statusCode"], shaped["headers"]["Content-Encoding"]) == (200, "gzip")
