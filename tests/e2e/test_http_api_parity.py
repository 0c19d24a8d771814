"""The local stack answers as API Gateway's HTTP API does: HEAD, requests without a route, bodies
that are not UTF-8, and the function's own headers, over real HTTP."""

import time

import pytest

from tests.e2e.running_stack import RunningStack

NOT_FOUND = {"message": "Not Found"}


def clicks_once_settled(stack: RunningStack, auth: dict[str, str], code: str, at_least: int) -> int:
    """The link's click count once ingest has counted at least `at_least` clicks."""
    deadline = time.monotonic() + 30
    while True:
        clicks = int(stack.request("GET", f"/links/{code}/stats", headers=auth).json()["clicks"])
        if clicks >= at_least or time.monotonic() > deadline:
            return clicks
        time.sleep(0.3)


def test_head_of_a_link_answers_as_get_without_a_body_or_a_click(stack, auth, api):
    # Given a link whose destination has characters werkzeug would re-encode
    code = api.new_link(url="https://example.com/a[1]?q=x|y&r=%7C")["code"]
    # When it is checked with HEAD (as link checkers and curl -I do), then followed once
    checks = [stack.request("HEAD", f"/{code}") for _ in range(3)]
    follow = stack.request("GET", f"/{code}")
    # Then HEAD answers what GET does, with no body
    assert follow.status == 302
    assert follow.headers["location"] == "https://example.com/a[1]?q=x|y&r=%7C"
    for check in checks:
        assert (check.status, check.headers["location"], check.body) == (302, follow.headers["location"], b"")
        assert check.headers["cache-control"] == follow.headers["cache-control"]
    # And neither carries a Content-Type the function did not set
    assert "content-type" not in follow.headers
    # And only the GET is counted
    assert clicks_once_settled(stack, auth, code, at_least=1) == 1


def test_head_does_not_use_up_a_click_budget_and_shows_the_unlock_form_without_it(stack, auth, api):
    budget = api.new_link(max_clicks=1)["code"]
    assert [stack.request("HEAD", f"/{budget}").status for _ in range(3)] == [302, 302, 302]
    assert stack.request("GET", f"/{budget}").status == 302
    assert stack.request("GET", f"/{budget}").status == 410
    assert stack.request("HEAD", f"/{budget}").status == 302  # HEAD never takes from the budget

    locked = api.new_link(password="open-sesame-2026")["code"]
    form = stack.request("HEAD", f"/{locked}")
    assert (form.status, form.body) == (200, b"")
    assert form.headers["content-type"].startswith("text/html")
    assert stack.request("HEAD", "/no-such-code").status == 404


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/links/abc/unknown"),
        ("PUT", "/links"),
        ("DELETE", "/abc"),
        ("PATCH", "/abc"),
        ("OPTIONS", "/abc"),
        ("GET", "/links/abc/stats/extra"),
    ],
)
def test_a_request_without_a_route_is_an_http_apis_not_found(stack, method, path):
    answer = stack.request(method, path)
    assert (answer.status, answer.json()) == (404, NOT_FOUND)
    assert answer.headers["content-type"] == "application/json"


@pytest.mark.parametrize("path", ["/links", "/links/abc", "/links/abc/stats", "/links/abc/qr"])
def test_head_of_a_route_without_head_is_not_found_without_a_body(stack, path):
    answer = stack.request("HEAD", path)
    assert (answer.status, answer.body) == (404, b"")


@pytest.mark.parametrize(
    ("content_type", "body", "status"),
    [
        ("application/x-www-form-urlencoded", b"password=\xff\xfe", 403),  # a wrong password
        ("application/x-www-form-urlencoded", b"\xff\xfe", 400),  # no password field
        ("application/octet-stream", b"password=open-sesame-2026", 303),
        ("text/plain", b"\xc3\x28", 400),
    ],
)
def test_bodies_reach_the_function_as_api_gateway_sends_them(stack, auth, content_type, body, status, api):
    # API Gateway base64-encodes a body that is not text/* or JSON, or not UTF-8; never a 502.
    locked = api.new_link(password="open-sesame-2026")["code"]
    answer = stack.request("POST", f"/{locked}", body, {"Content-Type": content_type})
    assert answer.status == status, answer.body
