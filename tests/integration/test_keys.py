"""An admin key manages its account's keys through the API: POST/GET/DELETE /keys."""

import json
from datetime import UTC, datetime, timedelta

from shortlink.access.api_keys import LINKS_READ, hash_api_key, issue_api_key
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event


def keys_call(handlers, method, path, key, body=None):
    route = "/keys/{key_id}" if path.count("/") == 2 else path
    parameters = {"key_id": path.rsplit("/", 1)[1]} if route != path else {}
    event = http_event(method, path, route=route, path_parameters=parameters, headers=bearer(key), body=body)
    answer = handlers["KeysFunction"](event)
    return answer["statusCode"], json.loads(answer["body"] or "null")


def links_call(handlers, method, key, body=None):
    function = "CreateFunction" if method == "POST" else "ManageFunction"
    answer = handlers[function](http_event(method, "/links", headers=bearer(key), body=body))
    return answer["statusCode"], json.loads(answer["body"] or "null")


def test_an_admin_creates_lists_and_revokes_keys_of_its_account(aws, handlers):
    admin = aws.new_api_key("root")
    # Given a link of the admin's account
    assert links_call(handlers, "POST", admin, {"url": "https://example.com/board"})[0] == 201
    expires = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    # When it creates a read-only key
    status, created = keys_call(
        handlers,
        "POST",
        "/keys",
        admin,
        {"name": "board", "scopes": ["links:read", "stats:read"], "expires_at": expires},
    )
    assert status == 201, created
    reader = created["key"]
    assert (created["scopes"], created["state"], created["last_used_on"]) == (
        ["links:read", "stats:read"],
        "active",
        None,
    )
    # Then the new key sees the account's links and may not create one
    status, page = links_call(handlers, "GET", reader)
    assert (status, [link["url"] for link in page["links"]]) == (200, ["https://example.com/board"])
    status, refused = links_call(handlers, "POST", reader, {"url": "https://example.com/x"})
    assert (status, refused["error"], refused["scope"]) == (403, "missing_scope", "links:write")
    # And the list shows both keys, with no secret and no hash
    status, listed = keys_call(handlers, "GET", "/keys", admin)
    assert status == 200
    assert [key["name"] for key in listed["keys"]] == ["root", "board"]
    assert listed["keys"][1]["last_used_on"] == datetime.now(UTC).date().isoformat()
    stored = json.dumps(aws.dynamodb.scan(TableName=resources().api_keys_table.value)["Items"])
    assert reader not in json.dumps(listed)
    assert reader not in stored
    assert "key_hash" not in json.dumps(listed)
    assert all("key" not in key for key in listed["keys"])
    # When it is revoked (twice: the same answer), it is refused
    assert keys_call(handlers, "DELETE", f"/keys/{created['key_id']}", admin) == (204, None)
    assert keys_call(handlers, "DELETE", f"/keys/{created['key_id']}", admin) == (204, None)
    assert links_call(handlers, "GET", reader)[0] == 401
    assert keys_call(handlers, "GET", "/keys", admin)[1]["keys"][1]["state"] == "revoked"


def test_another_accounts_keys_are_neither_listed_nor_revocable(aws, handlers):
    alice, bob = aws.new_api_key("alice"), aws.new_api_key("bob")
    _, bobs_reader = keys_call(handlers, "POST", "/keys", bob, {"name": "bob-board", "scopes": ["links:read"]})
    assert [key["name"] for key in keys_call(handlers, "GET", "/keys", alice)[1]["keys"]] == ["alice"]
    status, body = keys_call(handlers, "DELETE", f"/keys/{bobs_reader['key_id']}", alice)
    assert (status, body["error"]) == (404, "not_found")
    assert links_call(handlers, "GET", bobs_reader["key"])[0] == 200


def test_a_key_grants_no_scope_it_lacks_and_bad_requests_name_the_field(aws, handlers):
    admin = aws.new_api_key("root")
    _, keys_only = keys_call(handlers, "POST", "/keys", admin, {"name": "keys-only", "scopes": ["admin"]})
    status, body = keys_call(handlers, "POST", "/keys", keys_only["key"], {"name": "w", "scopes": ["links:write"]})
    assert (status, body) == (
        403,
        {
            "error": "missing_scope",
            "message": "granting links:write needs the scope links:write",
            "scope": "links:write",
        },
    )
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    for request, field in [
        ({"name": "x", "scopes": ["links:delete"]}, "scopes.0"),
        ({"name": "x", "scopes": []}, "scopes"),
        ({"name": "", "scopes": ["admin"]}, "name"),
        ({"name": "x" * 65, "scopes": ["admin"]}, "name"),
        ({"name": "x", "scopes": ["admin"], "expires_at": past}, "expires_at"),
        ({"name": "x", "scopes": ["admin"], "owner": "someone"}, "owner"),
    ]:
        before = aws.item_count(resources().api_keys_table.value)
        status, body = keys_call(handlers, "POST", "/keys", admin, request)
        assert (status, body["error"]) == (422, "invalid_request"), (request, body)
        assert body["message"].startswith(f"{field}: "), (request, body)
        assert aws.item_count(resources().api_keys_table.value) == before
    status, body = keys_call(handlers, "DELETE", "/keys/not-an-id", admin)
    assert (status, body["message"].split(":")[0]) == (422, "key_id")


def test_an_expired_key_is_refused_like_a_revoked_one(aws, handlers):
    store = DynamoApiKeyStore(resources().api_keys_table.value)
    now = datetime.now(UTC)
    _, plaintext = issue_api_key(store, "soon", frozenset({LINKS_READ}), now + timedelta(seconds=30), now)
    assert links_call(handlers, "GET", plaintext)[0] == 200
    aws.dynamodb.update_item(
        TableName=resources().api_keys_table.value,
        Key={"key_hash": {"S": hash_api_key(plaintext)}},
        UpdateExpression="SET #e = :past",
        ExpressionAttributeNames={"#e": "expires_at"},
        ExpressionAttributeValues={":past": {"S": "2026-01-01T00:00:00.000000+0000"}},
    )
    status, body = links_call(handlers, "GET", plaintext)
    assert (status, body["error"]) == (401, "unauthorized")


def test_a_keys_last_used_day_costs_one_write_however_many_requests(aws, handlers):
    key = aws.new_api_key("busy")
    with recording_aws_calls() as calls:
        for _ in range(5):
            assert links_call(handlers, "GET", key)[0] == 200
    # Five key reads, one conditional update of the day, five queries of the links
    assert calls.counts()[("dynamodb", "GetItem")] == 5
    assert calls.counts()[("dynamodb", "UpdateItem")] == 1
