"""API keys with scopes over real HTTP, on each DynamoDB: an admin key creates a read-only key,
lists it, the read-only key may read but not create, and once revoked it is refused."""


def test_an_admin_key_manages_a_read_only_key(stack, auth):
    created = stack.request("POST", "/keys", {"name": "e2e-reader", "scopes": ["links:read"]}, auth)
    assert created.status == 201, created.body
    reader = created.json()
    reader_auth = {"Authorization": f"Bearer {reader['key']}", "Content-Type": "application/json"}

    listed = stack.request("GET", "/keys", headers=auth)
    assert listed.status == 200, listed.body
    [shown] = [key for key in listed.json()["keys"] if key["key_id"] == reader["key_id"]]
    assert (shown["name"], shown["scopes"], shown["state"]) == ("e2e-reader", ["links:read"], "active")
    assert reader["key"].encode() not in listed.body

    assert stack.request("GET", "/links?limit=1", headers=reader_auth).status == 200
    refused = stack.request("POST", "/links", {"url": "https://example.com/e2e-keys"}, reader_auth)
    assert refused.status == 403, refused.body
    assert refused.json() == {
        "error": "missing_scope",
        "message": "POST /links needs the scope links:write",
        "scope": "links:write",
    }

    revoked = stack.request("DELETE", f"/keys/{reader['key_id']}", headers=auth)
    assert (revoked.status, revoked.body) == (204, b"")
    assert stack.request("GET", "/links?limit=1", headers=reader_auth).status == 401
