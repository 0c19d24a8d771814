"""CloudFront's viewer headers over real HTTP: the local stack stands in for the edge (it adds the
edge's secret, as CloudFront does); with SHORTLINK_TRUST_EDGE_HEADERS=false it is a stack reached
directly, where a forged viewer address or country changes nothing."""

import time
from urllib.parse import urlencode

from shortlink.access.rate_limits import UNLOCK_WINDOW_SECONDS
from tests.e2e.running_stack import RunningStack

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def test_a_direct_caller_cannot_reset_the_attempt_limit_or_pass_country_rules_with_forged_headers():
    started = RunningStack.start(
        SHORTLINK_TRUST_EDGE_HEADERS="false", SHORTLINK_API_KEY="sl_edgeTestKeyForTheDevStack0000000"
    )
    try:
        assert started.ready, started.output()
        auth = {"Authorization": f"Bearer {started.api_key}", "Content-Type": "application/json"}
        locked = started.request("POST", "/links", {"url": "https://example.com/", "password": "right-one-1"}, auth)
        code = locked.json()["code"]
        # Attempts are counted in fixed windows: the eleven below (about a second) must fall in one
        # (a boundary between them would rightly start a fresh count): never closer than 20 s to its end.
        left = UNLOCK_WINDOW_SECONDS - time.time() % UNLOCK_WINDOW_SECONDS
        if left < 20:
            time.sleep(left + 1)
        # Given 10 wrong tries
        wrong = urlencode({"password": "wrong"})
        assert [started.request("POST", f"/{code}", wrong, FORM).status for _ in range(10)] == [403] * 10
        # When the right password comes with a new forged viewer address, and a guessed edge secret
        forged = {**FORM, "CloudFront-Viewer-Address": "203.0.113.50:443", "X-Shortlink-Edge-Secret": "guess" * 8}
        right = started.request("POST", f"/{code}", urlencode({"password": "right-one-1"}), forged)
        # Then the limit still holds for the caller's real address
        assert right.status == 429
        # And a forged country passes no country rule
        german = started.request(
            "POST", "/links", {"url": "https://example.com/", "rules": {"allow": {"countries": ["DE"]}}}, auth
        )
        assert (
            started.request("GET", f"/{german.json()['code']}", headers={"CloudFront-Viewer-Country": "DE"}).status
            == 403
        )
    finally:
        assert started.stop() == 0


def test_the_local_edge_replaces_an_edge_secret_the_client_sends(stack, auth):
    german = stack.request(
        "POST", "/links", {"url": "https://example.com/", "rules": {"allow": {"countries": ["DE"]}}}, auth
    )
    code = german.json()["code"]
    headers = {"CloudFront-Viewer-Country": "DE", "X-Shortlink-Edge-Secret": "not-the-secret"}
    assert stack.request("GET", f"/{code}", headers=headers).status == 302  # believed: it came through the edge
    assert stack.request("GET", f"/{code}").status == 403  # no country: XX
