"""The store's conditional writes and paged reads over real HTTP: the idempotency records
(Powertools' own expressions), the click budget's conditional update, and GET /links pages.
On dynalite as on moto (tests/e2e/conftest.py), so an expression DynamoDB refuses cannot pass."""

import uuid


def test_an_idempotent_retry_gets_the_first_link(stack, auth):
    key = {**auth, "Idempotency-Key": str(uuid.uuid4())}
    first = stack.request("POST", "/links", {"url": "https://example.com/once"}, key)
    retried = stack.request("POST", "/links", {"url": "https://example.com/once"}, key)
    assert (first.status, retried.status) == (201, 201), (first.body, retried.body)
    assert retried.json()["code"] == first.json()["code"]
    other_body = stack.request("POST", "/links", {"url": "https://example.com/other"}, key)
    assert (other_body.status, other_body.json()["error"]) == (422, "idempotency_key_reused")


def test_a_click_budget_is_spent_exactly(stack, auth):
    code = stack.request("POST", "/links", {"url": "https://example.com/twice", "max_clicks": 2}, auth).json()["code"]
    assert [stack.request("GET", f"/{code}").status for _ in range(3)] == [302, 302, 410]


def test_a_listing_is_read_page_by_page_through_its_cursor(stack, auth):
    tag = f"pages-{uuid.uuid4().hex[:8]}"
    created = {
        stack.request("POST", "/links", {"url": f"https://example.com/p{n}", "tags": [tag]}, auth).json()["code"]
        for n in range(3)
    }
    first = stack.request("GET", f"/links?tag={tag}&limit=2", headers=auth).json()
    assert len(first["links"]) == 2
    assert first["next_cursor"]
    rest = stack.request("GET", f"/links?tag={tag}&limit=2&cursor={first['next_cursor']}", headers=auth).json()
    assert {link["code"] for link in first["links"] + rest["links"]} == created
    assert rest["next_cursor"] is None
