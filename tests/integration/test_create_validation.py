"""Bad input gets a clear 4xx JSON error naming the problem, and nothing is written."""

import base64
import json
import time

import boto3
import pytest

from shortlink import wiring as services
from shortlink.api.link_presentation import stack_own_hosts
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest


def post(handlers, body, headers=None, base64_body=False):
    event = http_event("POST", "/links", headers=headers, body=body, base64_body=base64_body)
    if headers and "content-type" in headers:
        event["headers"]["content-type"] = headers["content-type"]
    response = handlers["CreateFunction"](event, None)
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize(
    ("body", "status", "mentions"),
    [
        ("", 422, "JSON object"),
        ("not json", 422, "JSON object"),
        ("[1, 2]", 422, "JSON object"),
        ({}, 422, "url: field required"),
        ({"url": 42}, 422, "url"),
        ({"url": "https://example.com", "extra": 1}, 422, "extra: unknown field"),
        ({"url": "ftp://example.com"}, 422, "absolute http or https"),
        ({"url": "example.com"}, 422, "absolute http or https"),
        ({"url": "https://user:pw@example.com"}, 422, "credentials"),
        ({"url": "https://example.com/" + "a" * 2100}, 422, "2048"),
        ('{"url": "https://example.com"' + " " * 17000 + "}", 413, "16384 bytes"),
    ],
)
def test_invalid_requests_are_refused_and_write_nothing(aws, handlers, body, status, mentions):
    key = aws.new_api_key()
    code, answer = post(handlers, body, bearer(key))
    assert code == status
    assert mentions in answer["message"]
    assert answer["error"]
    assert aws.item_count("LinksTable") == 0
    assert aws.item_count("CountersTable") == 0


@pytest.mark.parametrize(
    "headers", [None, {"authorization": "Bearer sl_wrong"}, {"authorization": "Basic abc"}, {"authorization": ""}]
)
def test_missing_or_wrong_key_is_401_even_for_a_bad_body(aws, handlers, headers):
    for body in ({"url": "https://example.com"}, {"nope": 1}, "garbage"):
        code, answer = post(handlers, body, headers)
        assert code == 401
        assert answer["error"] == "unauthorized"
    assert aws.item_count("LinksTable") == 0


def test_a_form_body_is_415(aws, handlers):
    code, answer = post(
        handlers,
        "url=https://example.com",
        {**bearer(aws.new_api_key()), "content-type": "application/x-www-form-urlencoded"},
    )
    assert code == 415
    assert "application/json" in answer["message"]


def test_base64_bodies_are_decoded(aws, handlers):
    code, answer = post(handlers, {"url": "https://example.com/b64"}, bearer(aws.new_api_key()), base64_body=True)
    assert code == 201
    assert answer["url"] == "https://example.com/b64"


def test_an_exhausted_code_space_is_a_503_not_a_crash(aws, handlers):
    # Given the id counter already past the last 7-character code
    aws.dynamodb.put_item(TableName="CountersTable", Item={"name": {"S": "link-ids"}, "value": {"N": str(62**7)}})
    code, answer = post(handlers, {"url": "https://example.com"}, bearer(aws.new_api_key()))
    assert code == 503
    assert answer["error"] == "no_free_code"
    assert aws.item_count("LinksTable") == 0


def patch(handlers, code, key, body):
    event = http_event(
        "PATCH", f"/links/{code}", route="/links/{code}", path_parameters={"code": code}, headers=bearer(key), body=body
    )
    response = handlers["ManageFunction"](event, None)
    return response["statusCode"], json.loads(response["body"])


LOCAL_PORT = 3000  # the local stack's short URLs are http://127.0.0.1:PORT/...


@pytest.mark.parametrize(
    ("url", "mentions"),
    [
        # Read as browsers read them: `\` is `/`, so the host is sho.rt (the domain the request came in on)
        ("https://sho.rt\\loopme", "redirect loop"),
        ("https://evil.com\\.example.org/x", "evil.com is on the blocklist"),
        # The local stack's own address in the spellings browsers accept
        (f"http://127.1:{LOCAL_PORT}/", "redirect loop"),
        (f"http://2130706433:{LOCAL_PORT}/", "redirect loop"),
        (f"http://0x7f.0.0.1:{LOCAL_PORT}/", "redirect loop"),
        (f"http://017700000001:{LOCAL_PORT}/", "redirect loop"),
        (f"http://[::ffff:127.0.0.1]:{LOCAL_PORT}/", "redirect loop"),
        (f"http://%31%32%37.0.0.1:{LOCAL_PORT}/", "redirect loop"),
        # Hosts that are not valid hosts
        ("https://⒈.com/", "malformed"),
        ("https://-example.com/", "not a valid domain"),
        ("https://xn--/", "full domain name"),
        ("https://exa%20mple.com", "malformed"),
        ("https://[v1.fe]/", "malformed"),
    ],
)
def test_urls_are_refused_as_browsers_would_read_them(aws, handlers, monkeypatch, url, mentions):
    monkeypatch.setenv("BLOCKED_DOMAINS", "evil.com")
    # The local stack's public base; the request comes in on sho.rt (tests.events)
    monkeypatch.setenv("PUBLIC_BASE_URL", f"http://127.0.0.1:{LOCAL_PORT}")
    services.forget_settings()
    key = aws.new_api_key()
    code, answer = post(handlers, {"url": url}, bearer(key))
    assert (code, answer["error"]) == (422, "invalid_url")
    assert mentions in answer["message"]
    assert aws.item_count("LinksTable") == 0
    # Nor may an edit or a route of the rules point there
    link = post(handlers, {"url": "https://example.com/kept"}, bearer(key))[1]
    assert patch(handlers, link["code"], key, {"url": url})[0] == 422
    routes = {"routes": [{"devices": ["mobile"], "url": url}]}
    assert post(handlers, {"url": "https://example.com/", "rules": routes}, bearer(key))[0] == 422
    assert aws.item_count("LinksTable") == 1


def test_what_is_stored_and_sent_in_location_is_the_browsers_reading(aws, handlers):
    key = aws.new_api_key()
    code, created = post(handlers, {"url": "HTTPS://Bücher.Example:443/a/../ü?q=ö#top"}, bearer(key))
    assert code == 201
    expected = "https://xn--bcher-kva.example/%C3%BC?q=%C3%B6#top"
    assert created["url"] == expected
    item = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": created["code"]}})["Item"]
    assert item["url"]["S"] == expected
    follow = http_event("GET", f"/{created['code']}", route="/{code}", path_parameters={"code": created["code"]})
    assert handlers["RedirectFunction"](follow, None)["headers"]["Location"] == expected


STACK_HOSTS = "abc123.execute-api.us-east-1.amazonaws.com,d111111abcdef8.cloudfront.net"


@pytest.mark.parametrize(
    "url",
    [
        "https://abc123.execute-api.us-east-1.amazonaws.com/x",
        "https://ABC123.execute-api.us-east-1.amazonaws.com./x",
        "https://d111111abcdef8.cloudfront.net/x",
        "https://d111111abcdef8.cloudfront.net\\x",
        "https://%64111111abcdef8.cloudfront.net/",
    ],
)
def test_the_stacks_execute_api_and_edge_domains_are_own_hosts(aws, handlers, monkeypatch, url):
    # Given the stack wrote its other hosts to SSM (OwnHostsParameter, with a domain or the edge)
    ssm = boto3.client("ssm")
    ssm.put_parameter(Name="/shortlink-test/own-hosts", Value=STACK_HOSTS, Type="String", Overwrite=True)
    monkeypatch.setenv("OWN_HOSTS_PARAMETER", "/shortlink-test/own-hosts")
    services.forget_settings()
    stack_own_hosts.cache_clear()
    key = aws.new_api_key()
    with recording_aws_calls() as calls:
        link = post(handlers, {"url": "https://example.com/kept"}, bearer(key))[1]
        for _ in range(3):
            code, answer = post(handlers, {"url": url}, bearer(key))
            assert (code, answer["error"]) == (422, "invalid_url")
            assert "redirect loop" in answer["message"]
        assert patch(handlers, link["code"], key, {"url": url})[0] == 422
    # Then each execution environment reads them once (create and manage share this process)
    assert calls.counts()[("ssm", "GetParameter")] == 1
    assert aws.item_count("LinksTable") == 1


def test_own_hosts_that_cannot_be_read_refuse_the_create_with_a_503(aws, handlers, monkeypatch):
    # Given a stack still deploying: its own-hosts parameter not written yet
    monkeypatch.setenv("OWN_HOSTS_PARAMETER", "/shortlink-test/not-yet")
    services.forget_settings()
    stack_own_hosts.cache_clear()
    code, answer = post(handlers, {"url": "https://example.com/"}, bearer(aws.new_api_key()))
    assert (code, answer["error"]) == (503, "unavailable")
    assert aws.item_count("LinksTable") == 0


def raw_post(handlers, path, body, headers):
    """A request exactly as given: no content type unless `headers` has one."""
    event = http_event("POST", path, route=path, body=body if isinstance(body, str) else None)
    if isinstance(body, bytes):
        event["body"], event["isBase64Encoded"] = base64.b64encode(body).decode(), True
    event["headers"] = {"host": "sho.rt", **headers}
    response = handlers["CreateFunction"](event, None)
    return response["statusCode"], json.loads(response["body"])


# Item 7: moments that cannot be shifted to UTC, or that are no ISO 8601 text.
@pytest.mark.parametrize(
    "fields",
    [
        {"valid_from": "0001-01-01T00:30:00+01:00"},
        {"expires_at": "9999-12-31T23:30:00-01:00"},
        {"valid_from": "1969-12-31T23:59:59Z"},
        {"valid_from": 0},
        {"expires_at": 4102444800},
        {"expires_at": "4102444800"},
    ],
)
def test_moments_outside_the_range_or_not_text_are_422_naming_the_field(aws, handlers, fields):
    code, answer = post(handlers, {"url": "https://example.com", **fields}, bearer(aws.new_api_key()))
    assert code == 422
    assert answer["message"].startswith(f"{next(iter(fields))}: ")
    assert aws.item_count("LinksTable") == 0


# Item 8: Python refuses to read an integer of more than 4,300 digits.
@pytest.mark.parametrize("digits", [21, 4301, 10_000])
def test_a_huge_integer_is_a_422_naming_the_field(aws, handlers, digits):
    body = '{"url": "https://example.com", "max_clicks": ' + "9" * digits + "}"
    code, answer = post(handlers, body, bearer(aws.new_api_key()))
    assert (code, answer["error"]) == (422, "invalid_request")
    assert answer["message"].startswith("max_clicks: ")
    assert aws.item_count("LinksTable") == 0


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_json_constants_are_refused(aws, handlers, constant):
    body = '{"url": "https://example.com", "max_clicks": ' + constant + "}"
    assert post(handlers, body, bearer(aws.new_api_key()))[0] == 422
    assert aws.item_count("LinksTable") == 0


# Items 9 and 11: the pre-check's order is 413, 401, 415, then the body's JSON (422).
@pytest.mark.parametrize("path", ["/links", "/links/bulk"])
@pytest.mark.parametrize(
    ("content_type", "with_key", "status", "error"),
    [
        ("multipart/form-data", False, 401, "unauthorized"),
        ("multipart/form-data", True, 415, "unsupported_media_type"),
        ("multipart/form-data; boundary=x", True, 415, "unsupported_media_type"),
        ("application/jsonx", True, 415, "unsupported_media_type"),
        ("text/plain", False, 401, "unauthorized"),
        ("application/json; charset=latin-1", True, 415, "unsupported_media_type"),
        (None, True, 415, "unsupported_media_type"),
    ],
)
def test_media_types_are_checked_after_the_key_in_our_shape(aws, handlers, path, content_type, with_key, status, error):
    headers = bearer(aws.new_api_key()) if with_key else {}
    if content_type is not None:
        headers["content-type"] = content_type
    code, answer = raw_post(handlers, path, '{"url": "https://example.com"}', headers)
    assert (code, answer["error"]) == (status, error)
    assert set(answer) == {"error", "message"}
    assert aws.item_count("LinksTable") == 0


@pytest.mark.parametrize("content_type", ["APPLICATION/JSON", "application/json; charset=UTF-8", "Application/Json"])
def test_json_media_types_are_read_case_insensitively(aws, handlers, content_type):
    headers = {**bearer(aws.new_api_key()), "content-type": content_type}
    assert raw_post(handlers, "/links", '{"url": "https://example.com"}', headers)[0] == 201


def test_an_oversized_body_is_413_before_the_key_and_the_media_type(aws, handlers):
    code, answer = raw_post(handlers, "/links", "x" * 17_000, {"content-type": "multipart/form-data"})
    assert (code, answer["error"]) == (413, "body_too_large")
    code, answer = raw_post(handlers, "/links", b"\xff" * 17_000, {})
    assert (code, answer["error"]) == (413, "body_too_large")


# Item 10: API Gateway base64-encodes bodies it does not take for text.
@pytest.mark.parametrize(
    ("body", "mentions"),
    [(b'{"url": "https://example.com/\xff"}', "UTF-8"), (b"\xc3\x28", "UTF-8")],
)
def test_a_base64_body_that_is_not_utf8_is_a_422(aws, handlers, body, mentions):
    headers = {**bearer(aws.new_api_key()), "content-type": "application/json"}
    code, answer = raw_post(handlers, "/links", body, headers)
    assert (code, answer["error"]) == (422, "invalid_request")
    assert mentions in answer["message"]
    assert raw_post(handlers, "/links", body, {"content-type": "application/json"})[0] == 401
    assert aws.item_count("LinksTable") == 0


def test_a_body_marked_base64_that_is_not_is_a_422(aws, handlers):
    event = http_event("POST", "/links", headers=bearer(aws.new_api_key()), body='{"url": "https://example.com"}')
    event["isBase64Encoded"] = True
    response = handlers["CreateFunction"](event, None)
    assert response["statusCode"] == 422
    assert "base64" in json.loads(response["body"])["message"]
    assert aws.item_count("LinksTable") == 0


# Item 12: JSON types as documented, an object at the top.
@pytest.mark.parametrize(
    ("body", "mentions"),
    [
        ([{"url": "https://example.com"}], "JSON object"),
        ('"https://example.com"', "JSON object"),
        ({"url": "https://example.com", "max_clicks": True}, "max_clicks"),
        ({"url": "https://example.com", "max_clicks": "7"}, "max_clicks"),
        ({"url": "https://example.com", "max_clicks": 7.0}, "max_clicks"),
        ({"url": "https://example.com", "private": "yes"}, "private"),
        ({"url": "https://example.com", "private": 1}, "private"),
        ({"url": "https://example.com", "redirect_type": "301"}, "redirect_type"),
        ({"url": "https://example.com", "tags": "promo"}, "tags"),
        ({"url": "https://example.com", "title": 7}, "title"),
    ],
)
def test_types_are_not_coerced(aws, handlers, body, mentions):
    code, answer = post(handlers, body, bearer(aws.new_api_key()))
    assert (code, answer["error"]) == (422, "invalid_request")
    assert mentions in answer["message"]
    assert aws.item_count("LinksTable") == 0


# A field that takes an object (a nested model or free-form rules) is named when given something else.
@pytest.mark.parametrize("field", ["utm", "preview", "rules"])
@pytest.mark.parametrize("value", ["x", [], 5, True])
def test_an_object_field_given_no_object_is_a_422_naming_the_field_on_create_and_patch(aws, handlers, field, value):
    key = aws.new_api_key()
    code, answer = post(handlers, {"url": "https://example.com", field: value}, bearer(key))
    assert (code, answer["error"], answer["message"]) == (422, "invalid_request", f"{field}: must be an object")
    assert aws.item_count("LinksTable") == 0
    # The same edit of a link leaves it as it was
    _, link = post(handlers, {"url": "https://example.com", "tags": ["kept"]}, bearer(key))
    stored = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": link["code"]}})["Item"]
    code, answer = patch(handlers, link["code"], key, {field: value})
    assert (code, answer["error"], answer["message"]) == (422, "invalid_request", f"{field}: must be an object")
    assert aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": link["code"]}})["Item"] == stored


# Item 13: refused requests do not count against CreateRateLimitPerMinute.
def test_refused_creates_cost_no_allowance(aws, handlers, monkeypatch):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "5")
    services.reset()
    key = aws.new_api_key()
    if time.time() % 60 > 40:  # all of it inside one minute
        time.sleep(60 - time.time() % 60 + 0.1)
    assert post(handlers, {"url": "https://example.com/0", "slug": "taken"}, bearer(key))[0] == 201
    refused = [
        {"url": "https://example.com", "slug": "taken"},
        {"url": "https://example.com", "slug": "TAKEN"},
        {"url": "https://example.com", "slug": "ta-ken", "private": True},
        {"url": "ftp://example.com"},
        {"url": "https://example.com", "slug": "admin"},
        {"url": "https://example.com", "rules": {"allow": {"countries": ["ZZ"]}}},
    ]
    assert [post(handlers, body, bearer(key))[0] for body in refused] == [409, 409, 422, 422, 422, 422]
    statuses = [post(handlers, {"url": f"https://example.com/{i}"}, bearer(key))[0] for i in range(1, 6)]
    assert statuses == [201, 201, 201, 201, 429]
    assert aws.item_count("LinksTable") == 5 + 1  # the links and the slug's claim
