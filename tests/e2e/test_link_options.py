"""Link options over real HTTP through the local stack: slugs, private codes, redirect types,
expiry."""

import time
from datetime import UTC, datetime, timedelta

import pytest


@pytest.mark.dynamodb_features("TransactWriteItems")  # a slug and its claim are written together
def test_a_custom_slug_is_followed_and_its_look_alikes_are_refused(stack, auth):
    slug = f"Sale-{time.time_ns()}"
    created = stack.request("POST", "/links", {"url": "https://example.com/sale", "slug": slug}, auth)
    assert created.status == 201, created.body
    assert created.json()["short_url"] == f"{stack.base_url}/{slug}"
    assert stack.request("GET", f"/{slug}").status == 302

    taken = stack.request("POST", "/links", {"url": "https://example.com/other", "slug": slug.upper()}, auth)
    assert (taken.status, taken.json()["error"]) == (409, "slug_taken")
    reserved = stack.request("POST", "/links", {"url": "https://example.com/other", "slug": "Admin"}, auth)
    assert reserved.status == 422
    assert "slug" in reserved.json()["message"]


def test_a_permanent_private_link(stack, auth):
    created = stack.request(
        "POST", "/links", {"url": "https://example.com/p", "private": True, "redirect_type": 308}, auth
    )
    assert created.status == 201, created.body
    code = created.json()["code"]
    assert len(code) == 22
    followed = stack.request("GET", f"/{code}")
    assert followed.status == 308
    assert followed.headers["location"] == "https://example.com/p"
    assert followed.headers["cache-control"] == "public, max-age=3600"


def test_a_link_expires_into_410(stack, auth):
    expires = datetime.now(UTC) + timedelta(seconds=2)
    body = {"url": "https://example.com/flash", "expires_at": expires.isoformat()}
    created = stack.request("POST", "/links", body, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    assert stack.request("GET", f"/{code}").status == 302
    time.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds()) + 0.2)
    gone = stack.request("GET", f"/{code}")
    assert gone.status == 410
    assert gone.headers["content-type"].startswith("text/html")
