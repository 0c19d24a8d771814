"""A link is created, followed and counted over real HTTP through the local stack."""

import subprocess
import sys
import time

from tests.e2e.conftest import FIXED_KEY
from tests.e2e.running_stack import ROOT, RunningStack


def wait_for_clicks(stack: RunningStack, code: str, headers: dict[str, str], expected: int, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    clicks = -1
    while time.monotonic() < deadline:
        clicks = stack.request("GET", f"/links/{code}/stats", headers=headers).json()["clicks"]
        if clicks >= expected:
            break
        time.sleep(0.25)
    return int(clicks)


def test_create_follow_count(stack, auth):
    # Given the key from SHORTLINK_API_KEY
    assert stack.api_key == FIXED_KEY
    # When a link is created
    created = stack.request("POST", "/links", {"url": "https://example.com/landing?x=1"}, auth)
    assert created.status == 201, created.body
    link = created.json()
    assert link["short_url"] == f"{stack.base_url}/{link['code']}"
    assert len(link["code"]) == 7
    # Then following it redirects to the destination
    followed = stack.request("GET", f"/{link['code']}")
    assert followed.status == 302
    assert followed.headers["location"] == "https://example.com/landing?x=1"
    # And the click shows in the stats within a few seconds
    assert wait_for_clicks(stack, link["code"], auth, expected=1) == 1


def test_bad_requests_get_clear_json_errors(stack, auth):
    cases = [
        ({"Content-Type": "application/json"}, {"url": "https://example.com"}, 401, "unauthorized"),
        ({**auth, "Authorization": "Bearer sl_nope"}, {"url": "https://example.com"}, 401, "unauthorized"),
        (auth, "", 422, "invalid_request"),
        (auth, "{not json", 422, "invalid_request"),
        (auth, {}, 422, "invalid_request"),
        (auth, {"url": "https://example.com", "tag": "x"}, 422, "invalid_request"),
        (auth, {"url": "mailto:a@b.c"}, 422, "invalid_url"),
        (auth, {"url": "https://example.com/" + "a" * 2100}, 422, "invalid_request"),
        (auth, "x" * 20000, 413, "body_too_large"),
    ]
    for headers, body, status, error in cases:
        answer = stack.request("POST", "/links", body, headers)
        assert (answer.status, answer.json()["error"]) == (status, error), (body, answer.body)
        assert answer.json()["message"]


def test_unknown_code_gets_a_404_page(stack):
    answer = stack.request("GET", "/doesnotexist")
    assert answer.status == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert b"Link not found" in answer.body


def run_admin(stack: RunningStack, *args: str) -> str:
    """The admin command against the local stack's endpoints, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "tools.operators.admin", "--local", *args],
        cwd=ROOT,
        env={"MOTO_PORT": str(stack.moto_port), "PATH": "/usr/bin:/bin", **stack.endpoints},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def test_keys_from_the_admin_command_see_only_their_own_links(stack, auth):
    link = stack.request("POST", "/links", {"url": "https://example.com/private"}, auth).json()
    bob = {"Authorization": f"Bearer {run_admin(stack, 'keys', 'create', '--name', 'bob').strip().splitlines()[-1]}"}
    assert stack.request("GET", f"/links/{link['code']}/stats", headers=bob).status == 404
    assert stack.request("GET", f"/links/{link['code']}/stats", headers=auth).status == 200
    listed = run_admin(stack, "keys", "list")
    assert "bob" in listed
    assert "local-dev" in listed
