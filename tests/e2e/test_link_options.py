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


def test_query_forwarding_utm_crawling_preview_cards_and_the_fallback_over_http(stack, auth):
    # Issue 16 items 1, 3, 4, 5, 7 through the stack: one link carries them all
    campaign = f"c{time.time_ns()}"
    body = {
        "url": "https://example.com/shop?lang=en",
        "utm": {"source": "news", "campaign": campaign},
        "crawlable": True,
        "preview": {"title": "Shop <now>", "image": "https://example.com/card.png"},
        "max_clicks": 2,
        "expired_url": "https://example.com/ended",
    }
    created = stack.request("POST", "/links", body, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    followed = stack.request("GET", f"/{code}?ref=tw&lang=de&utm_source=x", headers={"User-Agent": "Mozilla/5.0"})
    assert followed.status == 302
    assert (
        followed.headers["location"]
        == f"https://example.com/shop?lang=en&utm_source=news&utm_campaign={campaign}&ref=tw"
    )
    assert "x-robots-tag" not in followed.headers
    card = stack.request("GET", f"/{code}", headers={"User-Agent": "Twitterbot/1.0"})
    assert card.status == 200
    assert '<meta name="twitter:title" content="Shop &lt;now&gt;">' in card.body.decode()
    used_up = stack.request("GET", f"/{code}", headers={"User-Agent": "Mozilla/5.0"})
    assert (used_up.status, used_up.headers["location"]) == (302, "https://example.com/ended")
    listed = stack.request("GET", f"/links?utm_campaign={campaign}", headers=auth)
    assert [link["code"] for link in listed.json()["links"]] == [code]
    robots = stack.request("GET", "/robots.txt")
    assert robots.status == 200
    assert robots.headers["content-type"].startswith("text/plain")
    assert robots.body.decode().endswith("Disallow: /\n")


def test_a_crawlable_link_is_deleted_and_restored_through_the_robots_index(stack, auth):
    # The delete takes the link out of robots.txt's index and the restore puts it back, each by
    # conditional writes a strict DynamoDB (dynalite) must accept as well.
    created = stack.request("POST", "/links", {"url": "https://example.com/indexed", "crawlable": True}, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    assert stack.request("DELETE", f"/links/{code}", headers=auth).status == 204
    restored = stack.request("POST", f"/links/{code}/restore", headers=auth)
    assert restored.status == 200, restored.body
    assert (restored.json()["crawlable"], restored.json()["deleted_at"]) == (True, None)
    read = stack.request("GET", f"/links/{code}", headers=auth)
    assert read.json() == restored.json()
