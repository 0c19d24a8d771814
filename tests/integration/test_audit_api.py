"""The audit log through the functions' handlers against moto: each change made through the API
is recorded with it (and nothing without one), and GET /audit shows an admin key its own
workspace's entries, as JSON or CSV, refusing bad parameters with a 400 that names them."""

import csv
import io
import json

import pytest

from shortlink.access.api_keys import generate_api_key, hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests.events import bearer, http_event
from tools.developers.devstack.resources import create_tables

pytestmark = pytest.mark.one_account_per_module


def call(handlers, function, method, path, key, body=None, route=None, params=None, query=None):
    event = http_event(method, path, route=route, path_parameters=params, headers=bearer(key), body=body, query=query)
    answer = handlers[function](event)
    return answer["statusCode"], answer


def audit(handlers, key, **query):
    status, answer = call(handlers, "KeysFunction", "GET", "/audit", key, query=query or None)
    assert status == 200, answer["body"]
    return json.loads(answer["body"])


def actions(handlers, key, **query):
    return [(entry["action"], entry["target"]["id"]) for entry in audit(handlers, key, **query)["entries"]]


def add_key(name, scopes=None):
    plaintext = generate_api_key()
    key_hash = hash_api_key(plaintext)
    scoped = {} if scopes is None else {"scopes": scopes}
    DynamoApiKeyStore(resources().api_keys_table.value).add(key_hash, key_id_for(key_hash), name, **scoped)
    return plaintext, key_id_for(key_hash)


def link_call(handlers, method, code, key, body=None):
    function = "ManageFunction"
    return call(handlers, function, method, f"/links/{code}", key, body, "/links/{code}", {"code": code})


def test_each_change_is_recorded_with_its_actor_and_nothing_is_recorded_without_a_change(aws, handlers):
    key, key_id = add_key("deploy bot")
    # Given a link created, then edited (a new destination and a password), deleted and restored
    status, created = call(handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com/a"})
    assert status == 201, created["body"]
    code = json.loads(created["body"])["code"]
    body = {"url": "https://example.com/b", "password": "correct horse battery"}
    assert link_call(handlers, "PATCH", code, key, body)[0] == 200
    assert link_call(handlers, "DELETE", code, key)[0] == 204
    assert call(handlers, "ManageFunction", "POST", f"/links/{code}/restore", key, None, "/links/{code}/restore",
                {"code": code})[0] == 200  # fmt: skip
    # And requests that change nothing: a refused URL, another's link, a key that lacks the scope
    assert call(handlers, "CreateFunction", "POST", "/links", key, {"url": "javascript:alert(1)"})[0] == 422
    other, _ = add_key("other")
    assert link_call(handlers, "DELETE", code, other)[0] == 404
    reader, _ = add_key("reader", scopes={"links:read"})
    assert link_call(handlers, "PATCH", code, reader, {"title": "x"})[0] == 403
    # Then the log holds the four changes, newest first, each by the key, and nothing else
    log = audit(handlers, key)["entries"]
    assert [(e["action"], e["target"]) for e in log] == [
        ("link.restored", {"kind": "link", "id": code}),
        ("link.deleted", {"kind": "link", "id": code}),
        ("link.edited", {"kind": "link", "id": code}),
        ("link.created", {"kind": "link", "id": code}),
    ]
    assert {json.dumps(e["actor"]) for e in log} == {json.dumps({"kind": "key", "id": key_id, "label": "deploy bot"})}
    assert log[2]["changed"] == ["password", "url"]
    assert "correct horse" not in json.dumps(log)
    assert hash_api_key(key) not in json.dumps(log)
    # from the client's address, hashed (never in clear), under API Gateway's request id
    assert {e["client"] for e in log} != {""}
    assert "203.0.113.9" not in json.dumps(log)
    assert {e["request_id"] for e in log} == {"req"}
    assert {e["workspace"] for e in log} == {key_id}
    assert audit(handlers, other)["entries"] == []


def test_keys_webhook_endpoints_and_imports_are_recorded(aws, handlers):
    admin, _ = add_key("admin")
    status, made = call(handlers, "KeysFunction", "POST", "/keys", admin, {"name": "ci", "scopes": ["links:read"]})
    assert status == 201, made["body"]
    made_id = json.loads(made["body"])["key_id"]
    revoke = call(handlers, "KeysFunction", "DELETE", f"/keys/{made_id}", admin, None, "/keys/{key_id}",
                  {"key_id": made_id})  # fmt: skip
    assert revoke[0] == 204
    status, endpoint = call(handlers, "WebhookEndpointsFunction", "POST", "/webhooks", admin,
                            {"url": "https://hooks.example.com/audit"})  # fmt: skip
    assert status == 201, endpoint["body"]
    endpoint_id = json.loads(endpoint["body"])["id"]
    removed = call(handlers, "WebhookEndpointsFunction", "DELETE", f"/webhooks/{endpoint_id}", admin, None,
                   "/webhooks/{endpoint_id}", {"endpoint_id": endpoint_id})  # fmt: skip
    assert removed[0] == 204
    csv_file = "url,slug\nhttps://example.com/one,audit-one\nhttps://example.com/two,\nnot a url,\n"
    event = http_event("POST", "/links/import", headers={**bearer(admin), "content-type": "text/csv"}, body=csv_file)
    report = json.loads(handlers["TransferFunction"](event)["body"])
    assert (report["created"], report["failed"]) == (2, 1)
    imported = [result["code"] for result in report["results"] if result["status"] == "created"]
    logged = actions(handlers, admin)
    # One entry per imported link (of one moment, so in no particular order between them)
    assert sorted(logged[:2]) == sorted(("link.imported", code) for code in imported)
    assert logged[2:] == [
        ("webhook.deleted", endpoint_id),
        ("webhook.created", endpoint_id),
        ("key.revoked", made_id),
        ("key.created", made_id),
    ]
    # A kind of target, or one target, selects its entries
    assert actions(handlers, admin, target="key") == [("key.revoked", made_id), ("key.created", made_id)]
    assert actions(handlers, admin, target="link", target_id="audit-one") == [("link.imported", "audit-one")]


def test_an_entry_that_cannot_be_written_fails_the_request_cleanly(aws, handlers, template):
    key, _ = add_key("k")
    status, created = call(handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com/a"})
    code = json.loads(created["body"])["code"]
    # Given an audit table that refuses writes (gone)
    aws.dynamodb.delete_table(TableName="AuditLogTable")
    try:
        # Then a change answers 503, naming no cause but "retry"
        status, answer = link_call(handlers, "PATCH", code, key, {"title": "t"})
        assert (status, json.loads(answer["body"])["error"]) == (503, "unavailable")
        assert answer["headers"]["Retry-After"] == "1"
    finally:
        create_tables(template, aws.dynamodb)  # the module's next test has it again


def test_an_imported_link_is_written_with_its_entry_or_not_at_all(aws, handlers, template):
    key, _ = add_key("importer")
    csv_file = "url,slug\nhttps://example.com/bound,bound-1\nhttps://example.com/bound-2,\n"
    headers = {**bearer(key), "content-type": "text/csv"}
    # Given an audit table that refuses writes (gone)
    aws.dynamodb.delete_table(TableName="AuditLogTable")
    try:
        # Then each record fails as unavailable, and no link was written without its entry
        report = json.loads(handlers["TransferFunction"](http_event("POST", "/links/import", headers=headers,
                                                                    body=csv_file))["body"])  # fmt: skip
        assert [(r["status"], r.get("error")) for r in report["results"]] == [("failed", "unavailable")] * 2
        assert aws.item_count("LinksTable") == 0
    finally:
        create_tables(template, aws.dynamodb)
    # With the table back, the same file imports both, each with its entry
    report = json.loads(
        handlers["TransferFunction"](http_event("POST", "/links/import", headers=headers, body=csv_file))["body"]
    )
    assert report["created"] == 2
    assert sorted(code for _, code in actions(handlers, key)) == sorted(r["code"] for r in report["results"])


def test_only_an_admin_key_reads_the_log_and_only_its_own_workspace(aws, handlers):
    admin, _ = add_key("admin")
    other, _ = add_key("other admin")
    writer, _ = add_key("writer", scopes={"links:read", "links:write", "stats:read"})
    call(handlers, "CreateFunction", "POST", "/links", admin, {"url": "https://example.com/mine", "slug": "mine-1"})
    call(handlers, "CreateFunction", "POST", "/links", other, {"url": "https://example.com/theirs", "slug": "theirs-1"})
    status, refused = call(handlers, "KeysFunction", "GET", "/audit", writer)
    assert (status, json.loads(refused["body"])["scope"]) == (403, "admin")
    assert actions(handlers, admin) == [("link.created", "mine-1")]
    assert actions(handlers, other) == [("link.created", "theirs-1")]
    # Naming another workspace's link finds nothing
    assert actions(handlers, admin, target="link", target_id="theirs-1") == []


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"since": "last week"}, "since"),
        ({"until": "2026-13-01T00:00:00Z"}, "until"),
        ({"since": "2026-12-02T00:00:00Z", "until": "2026-12-01T00:00:00Z"}, "until"),
        ({"format": "xml"}, "format"),
        ({"target": "everything"}, "target"),
        ({"limit": "\uff11\uff10"}, "limit"),  # fullwidth digits
        ({"cursor": "bm90IG91cnM"}, "cursor"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(aws, handlers, query, parameter):
    admin, _ = add_key("admin")
    status, answer = call(handlers, "KeysFunction", "GET", "/audit", admin, query=query)
    body = json.loads(answer["body"])
    assert (status, body["error"], body["parameter"]) == (400, "invalid_query", parameter)
    assert body["message"].startswith(f"{parameter}: ")


def test_the_log_pages_and_exports_as_csv(aws, handlers):
    admin, key_id = add_key("=cmd|' /C calc'!A0")  # a key name a spreadsheet would run
    for index in range(3):
        call(handlers, "CreateFunction", "POST", "/links", admin, {"url": f"https://example.com/{index}"})
    first = audit(handlers, admin, limit="2")
    second = audit(handlers, admin, limit="2", cursor=first["next_cursor"])
    assert len(first["entries"]) == 2
    assert len(second["entries"]) == 1
    status, answer = call(handlers, "KeysFunction", "GET", "/audit", admin, query={"format": "csv"})
    assert status == 200
    assert answer["headers"]["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(answer["body"])))
    assert [row["id"] for row in rows] == [e["id"] for e in first["entries"] + second["entries"]]
    assert {row["actor_label"] for row in rows} == {"'=cmd|' /C calc'!A0"}
    assert {row["actor_id"] for row in rows} == {key_id}
