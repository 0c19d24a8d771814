"""The audit log through `make dev`'s stack, over real HTTP, on each DynamoDB: a key's changes
(a webhook endpoint, a link created, edited and deleted, a key made and revoked) are in the log
in order with that key as their actor, in the link's own view, in the CSV and JSON exports, and
reach a webhook receiver as signed audit.recorded events."""

import csv
import io
import json
import time
from typing import Any

from tests.e2e.running_stack import RunningStack
from tests.webhook_receiver import Receiver, webhook_receiver
from tools.developers.devstack.__main__ import DEV_KEY_NAME

ALL_SCOPES = ["links:read", "links:write", "stats:read", "admin"]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}


def own_entries(stack: RunningStack, key: str, key_id: str, **query: str) -> list[dict[str, Any]]:
    """The log's entries made by `key_id` (the shared stack's other tests write to the workspace too)."""
    path = "/audit?" + "&".join(f"{name}={value}" for name, value in {"limit": "1000", **query}.items())
    answer = stack.request("GET", path, headers=bearer(key))
    assert answer.status == 200, answer.body
    return [entry for entry in answer.json()["entries"] if entry["actor"]["id"] == key_id]


def audit_events(receiver: Receiver, key_id: str, count: int, timeout: float = 30) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    found: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        found = [
            json.loads(r.body)["data"]
            for r in receiver.of_type("audit.recorded")
            if json.loads(r.body)["data"]["actor"]["id"] == key_id
        ]
        if len(found) >= count:
            break
        time.sleep(0.25)
    return found


def test_each_change_is_logged_in_order_with_its_actor_exported_and_sent_to_webhooks(stack: RunningStack, auth):
    # Given a key of the stack's workspace, made by its admin key
    made = stack.request("POST", "/keys", {"name": "audit-e2e", "scopes": ALL_SCOPES}, auth)
    assert made.status == 201, made.body
    key, key_id = made.json()["key"], made.json()["key_id"]
    with webhook_receiver() as receiver:
        # When it registers an endpoint for audit events, creates, edits and deletes a link, and
        # makes and revokes a key
        endpoint = stack.request("POST", "/webhooks", {"url": receiver.url, "events": ["audit.recorded"]}, bearer(key))
        assert endpoint.status == 201, endpoint.body
        created = stack.request("POST", "/links", {"url": "https://example.com/audited"}, bearer(key))
        assert created.status == 201, created.body
        code = created.json()["code"]
        edited = stack.request("PATCH", f"/links/{code}", {"url": "https://example.com/re-audited"}, bearer(key))
        assert edited.status == 200, edited.body
        assert stack.request("DELETE", f"/links/{code}", headers=bearer(key)).status == 204
        reader = stack.request("POST", "/keys", {"name": "audit-e2e-reader", "scopes": ["links:read"]}, bearer(key))
        assert reader.status == 201, reader.body
        reader_id = reader.json()["key_id"]
        assert stack.request("DELETE", f"/keys/{reader_id}", headers=bearer(key)).status == 204
        events = audit_events(receiver, key_id, 6)
        secret = endpoint.json()["secret"]
        verified = receiver.verified(secret)
        assert stack.request("DELETE", f"/webhooks/{endpoint.json()['id']}", headers=bearer(key)).status == 204

    # Then the log shows each step, newest first, with the key as its actor
    expected = [
        ("key.revoked", reader_id),
        ("key.created", reader_id),
        ("link.deleted", code),
        ("link.edited", code),
        ("link.created", code),
        ("webhook.created", endpoint.json()["id"]),
    ]
    entries = own_entries(stack, key, key_id)
    assert [(e["action"], e["target"]["id"]) for e in entries][1:] == expected  # newest: the endpoint's removal
    assert entries[0]["action"] == "webhook.deleted"
    assert {e["actor"]["label"] for e in entries} == {"audit-e2e"}
    # each with the id of the request that made it
    assert all(e["request_id"] for e in entries)
    assert len({e["request_id"] for e in entries}) == len(entries)
    assert entries[4]["changed"] == ["url"]  # the edit
    # and the key's own creation, by the stack's admin key
    keys_log = stack.request("GET", "/audit?target=key&limit=1000", headers=bearer(key)).json()["entries"]
    [making] = [e for e in keys_log if e["target"]["id"] == key_id]
    assert (making["action"], making["actor"]["label"]) == ("key.created", DEV_KEY_NAME)
    # The link's own view holds its three entries
    assert [e["action"] for e in own_entries(stack, key, key_id, target="link", target_id=code)] == [
        "link.deleted",
        "link.edited",
        "link.created",
    ]
    # CSV and JSON exports carry them
    exported = stack.request("GET", "/audit?format=csv&limit=1000", headers=bearer(key))
    assert exported.status == 200
    assert exported.headers["content-type"].startswith("text/csv")
    rows = [row for row in csv.DictReader(io.StringIO(exported.body.decode())) if row["actor_id"] == key_id]
    assert [(row["action"], row["target_id"]) for row in rows][1:] == expected
    as_json = stack.request("GET", "/audit?format=json&limit=1000", headers=bearer(key)).json()
    assert [e["id"] for e in as_json["entries"] if e["actor"]["id"] == key_id] == [e["id"] for e in entries]
    # And the receiver got a signed audit.recorded event of each step but the endpoint's removal
    assert sorted((e["action"], e["target"]["id"]) for e in events) == sorted(expected)
    assert {p["type"] for p in verified} == {"audit.recorded"}


def test_a_request_that_changes_nothing_records_nothing(stack: RunningStack, auth):
    made = stack.request("POST", "/keys", {"name": "audit-e2e-idle", "scopes": ALL_SCOPES}, auth).json()
    key, key_id = made["key"], made["key_id"]
    # A refused destination, an unknown link, an unknown key, a bad edit of a link of its own
    assert stack.request("POST", "/links", {"url": "javascript:alert(1)"}, bearer(key)).status == 422
    assert stack.request("DELETE", "/links/zzzzzzz", headers=bearer(key)).status == 404
    assert stack.request("DELETE", "/keys/0123456789ab", headers=bearer(key)).status == 404
    created = stack.request("POST", "/links", {"url": "https://example.com/idle"}, bearer(key)).json()
    refused = stack.request("PATCH", f"/links/{created['code']}", {"redirect_type": 999}, bearer(key))
    assert refused.status == 422
    # Only the one change is in the log
    assert [(e["action"], e["target"]["id"]) for e in own_entries(stack, key, key_id)] == [
        ("link.created", created["code"])
    ]
    assert stack.request("DELETE", f"/keys/{key_id}", headers=auth).status == 204


def test_a_bad_parameter_or_a_key_without_admin_gets_a_4xx_naming_it(stack: RunningStack, auth):
    refused = stack.request("GET", "/audit?since=yesterday", headers=auth)
    assert refused.status == 400
    assert refused.json()["parameter"] == "since"
    assert stack.request("GET", "/audit?format=pdf", headers=auth).json()["parameter"] == "format"
    reader = stack.request("POST", "/keys", {"name": "audit-e2e-no-admin", "scopes": ["links:read"]}, auth).json()
    answer = stack.request("GET", "/audit", headers=bearer(reader["key"]))
    assert (answer.status, answer.json()["scope"]) == (403, "admin")
    assert stack.request("DELETE", f"/keys/{reader['key_id']}", headers=auth).status == 204
