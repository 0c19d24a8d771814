"""A private link's code is its capability: no log line the local stack or the functions write
holds it, whatever is done with the link, right or wrong."""

import time

from tests.e2e.running_stack import RunningStack


def test_no_log_line_holds_a_private_code_through_a_links_whole_life(stack: RunningStack, auth):
    # Given a private link with a password and a click budget
    created = stack.request("POST", "/links", {"url": "https://example.com/secret", "private": True}, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    locked = stack.request(
        "POST", "/links", {"url": "https://example.com/s2", "private": True, "password": "pw-for-logs-1"}, auth
    ).json()["code"]
    written_before = len(stack.lines)
    # When it is followed, checked, unlocked wrongly and rightly, managed and misused
    requests = [
        ("GET", f"/{code}", None, {}),
        ("HEAD", f"/{code}", None, {}),
        ("POST", f"/{code}", "x=1", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("GET", f"/{locked}", None, {}),
        ("POST", f"/{locked}", "password=wrong", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("POST", f"/{locked}", "password=pw-for-logs-1", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("GET", f"/links/{code}", None, auth),
        ("GET", f"/links/{code}/stats?granularity=hour&from=2026-01-01T00:00:00Z", None, auth),
        ("GET", f"/links/{code}/stats?from=yesterday", None, auth),  # 422
        ("GET", f"/links/{code}/qr", None, auth),
        ("PATCH", f"/links/{code}", '{"title": "t"}', auth),
        ("PATCH", f"/links/{code}", '{"max_clicks": -1}', auth),  # 422
        ("PATCH", f"/links/{code}", "{not json", auth),  # 400
        ("GET", f"/links/{code}", None, {}),  # 401
        ("DELETE", f"/links/{code}", None, auth),
        ("GET", f"/{code}", None, {}),  # 302 from the cache, or 410
        ("POST", f"/links/{code}/restore", None, auth),
        ("GET", f"/links/{code}/unknown", None, auth),  # no route
        ("PUT", f"/{code}", None, {}),  # no route
        ("GET", f"/{code}", None, {}),
    ]
    statuses = [stack.request(method, path, body, headers).status for method, path, body, headers in requests]
    assert statuses[0] == 302
    assert 404 in statuses
    # And its clicks have been counted (ingest has written its lines too)
    deadline = time.monotonic() + 30
    while stack.request("GET", f"/links/{code}/stats", headers=auth).json()["clicks"] < 2:
        assert time.monotonic() < deadline, "the clicks were never counted"
        time.sleep(0.3)
    # Then lines were written for all of it, and none holds either code
    written = stack.lines[written_before:]
    assert len(written) >= len(requests)
    assert [line for line in written if code in line or locked in line] == []
    assert [line for line in stack.lines if code in line or locked in line] == []
