"""POST /links/bulk/changes through the manage function's handler against moto: every link changed
in one transaction with its audit entry, one `link.*` event and one entry per link, or, when one
link is refused (by its own checks or by the transaction's condition), nothing written and each
refused link named (docs/links.md, Bulk changes)."""

import json
import re
from typing import Any

import boto3
import pytest

from shortlink.access.api_keys import hash_api_key
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.adapters.dynamodb.link_batch import DynamoLinkBatch
from shortlink.wiring import resources
from tests.events import bearer, http_event
from tests.integration.test_console import Browser, browser, scoped_key, signed_in
from tests.integration.test_link_events import drained, link_changes

__all__ = ["browser"]  # a fixture, used by name

pytestmark = pytest.mark.one_account_per_module

ROUTE = "/links/bulk/changes"
LATER = "2031-01-01T00:00:00Z"


def call(handlers, function, method, path, key, body=None, headers=None, route=None, code=None):
    event = http_event(
        method, path, route=route, path_parameters={"code": code} if code else None,
        headers={**bearer(key), **(headers or {})}, body=body,
    )  # fmt: skip
    answer: dict[str, Any] = handlers[function](event)
    return answer["statusCode"], json.loads(answer["body"]) if answer.get("body") else None


def change(handlers, key, body, headers=None):
    return call(handlers, "ManageFunction", "POST", ROUTE, key, body, headers)


def created(handlers, key, **fields) -> str:
    status, link = call(handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com/b", **fields})
    assert status == 201, link
    return str(link["code"])


def read(handlers, key, code) -> dict[str, Any]:
    status, link = call(handlers, "ManageFunction", "GET", f"/links/{code}", key, route="/links/{code}", code=code)
    assert status == 200, link
    return dict(link)


def entries(handlers, key) -> list[tuple[str, str]]:
    status, page = call(handlers, "KeysFunction", "GET", "/audit", key)
    assert status == 200, page
    return [(entry["action"], entry["target"]["id"]) for entry in page["entries"]]


def test_a_retag_changes_every_link_with_one_entry_and_one_event_each(aws, handlers):
    key = aws.new_api_key("bulk")
    codes = [created(handlers, key, tags=["old", "keep"]) for _ in range(3)]
    drained(aws)
    before = entries(handlers, key)
    body = {"links": [{"code": code} for code in codes], "action": "retag", "add_tags": ["new"], "remove_tags": ["old"]}
    status, answer = change(handlers, key, body)
    assert status == 200, answer
    assert answer["changed"] == 3
    assert [read(handlers, key, code)["tags"] for code in codes] == [["keep", "new"]] * 3
    assert link_changes(drained(aws)) == [
        pair for code in codes for pair in (("link.updated", code), ("audit.recorded", "link.edited"))
    ]
    assert sorted(entries(handlers, key)[: -len(before) or None]) == sorted(("link.edited", code) for code in codes)


def test_one_refused_link_writes_nothing_and_is_named(aws, handlers):
    key = aws.new_api_key("bulk")
    plain = created(handlers, key)
    scheduled = created(handlers, key, valid_from="2032-01-01T00:00:00Z")  # after the expiry below
    drained(aws)
    before = entries(handlers, key)
    links = [{"code": plain}, {"code": scheduled}, {"code": "no-such-link"}]
    status, answer = change(handlers, key, {"links": links, "action": "set_expiry", "expires_at": LATER})
    assert status == 422, answer
    assert answer["error"] == "bulk_refused"
    assert [(item["code"], item["status"], item["error"]) for item in answer["refused"]] == [
        (scheduled, 422, "invalid_request"),
        ("no-such-link", 404, "not_found"),
    ]
    assert answer["refused"][0]["message"] == "expires_at must be after valid_from"
    assert read(handlers, key, plain)["expires_at"] is None  # nothing written
    assert entries(handlers, key) == before
    assert drained(aws) == []


def test_a_link_changed_meanwhile_fails_the_transaction_and_nothing_is_written(aws, handlers, monkeypatch):
    # Given two links, one of which another writer takes away between the batch's read and its commit
    key = aws.new_api_key("bulk")
    kept, taken = created(handlers, key), created(handlers, key)
    drained(aws)
    table = boto3.resource("dynamodb").Table(resources().links_table.value)
    read_links = DynamoLinkBatch.read

    def read_then_taken(batch, keys):
        read_links(batch, keys)
        table.update_item(
            Key={"code": taken}, UpdateExpression="SET #o = :o",
            ExpressionAttributeNames={"#o": "owner"}, ExpressionAttributeValues={":o": "someone-else"},
        )  # fmt: skip

    monkeypatch.setattr(DynamoLinkBatch, "read", read_then_taken)
    before = entries(handlers, key)
    # When both are deleted in one bulk change
    status, answer = change(handlers, key, {"links": [{"code": kept}, {"code": taken}], "action": "delete"})
    # Then the transaction's condition refuses it, naming the link, and the other is not deleted either
    assert status == 422, answer
    assert [(item["code"], item["status"]) for item in answer["refused"]] == [(taken, 404)]
    assert read(handlers, key, kept)["deleted_at"] is None
    assert entries(handlers, key) == before
    assert drained(aws) == []


def test_a_filter_selects_deleted_links_for_a_restore_and_the_others_for_the_rest(aws, handlers):
    key = aws.new_api_key("bulk")
    spring = [created(handlers, key, tags=["spring"], title=f"Spring sale {n}") for n in range(2)]
    autumn = created(handlers, key, tags=["autumn"], title="Autumn")
    status, answer = change(handlers, key, {"filter": {"tag": "spring", "search": "SALE"}, "action": "delete"})
    assert (status, answer["changed"]) == (200, 2), answer
    assert {link["code"] for link in answer["links"]} == set(spring)
    assert read(handlers, key, autumn)["deleted_at"] is None
    status, answer = change(handlers, key, {"filter": {"tag": "spring"}, "action": "restore"})
    assert (status, sorted(link["code"] for link in answer["links"])) == (200, sorted(spring)), answer
    status, answer = change(handlers, key, {"filter": {"tag": "winter"}, "action": "clear_expiry"})
    assert (status, answer["message"]) == (422, "filter: no link matches it")


def test_an_idempotent_retry_changes_nothing_twice(aws, handlers):
    key = aws.new_api_key("bulk")
    code = created(handlers, key, tags=["a"])
    drained(aws)
    body = {"links": [{"code": code}], "action": "retag", "add_tags": ["b"]}
    first = change(handlers, key, body, {"Idempotency-Key": "bulk-1"})
    assert change(handlers, key, body, {"Idempotency-Key": "bulk-1"}) == first
    assert first[0] == 200
    assert len(link_changes(drained(aws))) == 2  # one link.updated and its entry's event, once
    other = {**body, "add_tags": ["c"]}
    assert change(handlers, key, other, {"Idempotency-Key": "bulk-1"})[0] == 422  # the key with another request


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"links": [{"code": f"c{n}"} for n in range(51)], "action": "delete"}, "links: List should have at most 50"),
        ({"action": "delete"}, "give either links or filter"),
        ({"filter": {}, "action": "delete"}, "filter: give at least one of"),
        ({"links": [{"code": "a"}], "action": "retag"}, "retag: give add_tags, remove_tags or both"),
        ({"links": [{"code": "a"}], "action": "set_expiry"}, "expires_at goes with action set_expiry"),
        ({"links": [{"code": "a"}], "action": "archive"}, "action: Input should be"),
    ],
)
def test_a_bad_request_is_refused_naming_the_problem(aws, handlers, body, message):
    status, answer = change(handlers, aws.new_api_key("bulk"), body)
    assert (status, answer["error"]) == (422, "invalid_request"), answer
    assert message in answer["message"]


def ticked(page: str) -> list[str]:
    """The values of the list's checkboxes, as a browser would send them ticked."""
    return re.findall(r'name="selected" form="bulk-changes" value="([^"]*)"', page)


def test_the_console_changes_the_ticked_links_or_names_those_refused(aws, handlers, browser: Browser):
    # Given an editor's list of three links, one of them scheduled after the expiry below
    key = aws.new_api_key("console")
    plain = [created(handlers, key, tags=["old"]) for _ in range(2)]
    scheduled = created(handlers, key, valid_from="2032-01-01T00:00:00Z")
    signed_in(browser, key)
    page = browser.get("/console")["body"]
    assert sorted(ticked(page)) == sorted(f"/{code}" for code in [*plain, scheduled])
    # When two are ticked and retagged, without script (the form as posted)
    form: dict[str, str | list[str]] = {"csrf": browser.csrf(), "selected": [f"/{code}" for code in plain]}
    form["action"] = "retag"
    answer = browser.post("/console/links/bulk/changes", {**form, "add_tags": "new, more", "remove_tags": "old"})
    # Then both are changed and the list says so
    assert (answer["statusCode"], answer["headers"]["Location"]) == (303, "/console?changed=2")
    assert "2 links changed." in browser.get("/console", changed="2")["body"]
    assert [read(handlers, key, code)["tags"] for code in plain] == [["new", "more"]] * 2
    # And an expiry for all three is refused, naming the one link that cannot take it, writing none
    expiry = {"action": "set_expiry", "expires_at_local": "2031-01-01T00:00"}
    selected = {"selected": ticked(page)}
    refused = browser.post("/console/links/bulk/changes", {"csrf": browser.csrf(), **selected, **expiry})
    assert refused["statusCode"] == 422
    assert f'<tr data-code="{scheduled}">' in refused["body"]
    assert "expires_at must be after valid_from" in refused["body"]
    assert [read(handlers, key, code)["expires_at"] for code in plain] == [None, None]


def test_a_viewer_is_offered_no_bulk_change_and_cannot_post_one(aws, handlers, browser: Browser):
    owner_key = aws.new_api_key("owner")
    code = created(handlers, owner_key)
    owner = DynamoApiKeyStore(resources().api_keys_table.value).find_by_hash(hash_api_key(owner_key))
    assert owner is not None
    signed_in(browser, scoped_key("links:read", owner=owner.owner))
    page = browser.get("/console")["body"]
    assert code in page
    assert ticked(page) == []
    assert 'id="bulk-changes"' not in page
    form: dict[str, str | list[str]] = {"csrf": browser.csrf(), "selected": [f"/{code}"], "action": "delete"}
    assert browser.post("/console/links/bulk/changes", form)["statusCode"] == 403
    assert read(handlers, owner_key, code)["deleted_at"] is None
