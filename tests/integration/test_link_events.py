"""Every door's link changes through the same link commands, against moto: a link created,
edited, deleted and restored through the API's functions and through the console queues the same
`link.*` events, each beside its entry's `audit.recorded`, and an import a `link.created` per
new link (docs/webhooks.md, Events)."""

import json
from typing import Any

from tests.events import bearer, http_event
from tests.integration.test_console import Browser, browser, create, signed_in
from tests.integration.test_import_export import import_file

__all__ = ["browser"]  # a fixture, used by name

QUEUE = "WebhookDeliveryQueue"


def drained(aws) -> list[dict[str, Any]]:
    """Every event on the webhook queue (taken off it), in the order of the calls that sent them."""
    events = []
    while messages := aws.sqs.receive_message(QueueUrl=aws.queue_urls[QUEUE], MaxNumberOfMessages=10).get(
        "Messages", []
    ):
        for message in messages:
            events.append(json.loads(message["Body"]))
            aws.sqs.delete_message(QueueUrl=aws.queue_urls[QUEUE], ReceiptHandle=message["ReceiptHandle"])
    return events


def link_changes(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The link events (type, code) and the link entries' events (audit.recorded, action), in order."""
    return [
        (event["type"], event["data"]["action"] if event["type"] == "audit.recorded" else event["data"]["code"])
        for event in events
        if event["type"].startswith("link.") or event["data"].get("action", "").startswith("link.")
    ]


def through_api(handlers, key, method, path, body=None, route=None, code=None) -> dict[str, Any]:
    event = http_event(
        method, path, route=route, path_parameters={"code": code} if code else None, headers=bearer(key), body=body
    )
    function = "CreateFunction" if path == "/links" else "ManageFunction"
    answer: dict[str, Any] = handlers[function](event)
    return answer


EXPECTED = [
    ("link.created", "same-events"),
    ("audit.recorded", "link.created"),
    ("link.updated", "same-events"),
    ("audit.recorded", "link.edited"),
    ("link.deleted", "same-events"),
    ("audit.recorded", "link.deleted"),
    ("link.restored", "same-events"),
    ("audit.recorded", "link.restored"),
]


def test_the_api_queues_each_changes_link_event_beside_its_entry(aws, handlers):
    key = aws.new_api_key("api")
    drained(aws)
    created = through_api(handlers, key, "POST", "/links", {"url": "https://example.com/a", "slug": "same-events"})
    assert created["statusCode"] == 201, created["body"]
    one = {"route": "/links/{code}", "code": "same-events"}
    assert (
        through_api(handlers, key, "PATCH", "/links/same-events", {"url": "https://example.com/b"}, **one)["statusCode"]
        == 200
    )
    assert through_api(handlers, key, "DELETE", "/links/same-events", **one)["statusCode"] == 204
    restore = {"route": "/links/{code}/restore", "code": "same-events"}
    assert through_api(handlers, key, "POST", "/links/same-events/restore", **restore)["statusCode"] == 200
    events = drained(aws)
    assert link_changes(events) == EXPECTED
    updated = next(event for event in events if event["type"] == "link.updated")
    assert updated["data"]["url"] == "https://example.com/b"  # the link as the API shows it


def test_the_console_queues_the_same_events_as_the_api(aws, browser: Browser):
    signed_in(browser, aws.new_api_key("console"))
    drained(aws)  # the sign-in's entry
    assert create(browser, url="https://example.com/a", slug="same-events")["statusCode"] == 303
    edit = {"csrf": browser.csrf(), "url": "https://example.com/b"}
    assert browser.post("/console/links/same-events", edit)["statusCode"] == 303
    assert (
        browser.post("/console/links/same-events/delete", {"csrf": browser.csrf(), "confirmed": "yes"})["statusCode"]
        == 303
    )
    assert browser.post("/console/links/same-events/restore", {"csrf": browser.csrf()})["statusCode"] == 303
    events = drained(aws)
    assert link_changes(events) == EXPECTED
    updated = next(event for event in events if event["type"] == "link.updated")
    assert (updated["data"]["url"], updated["data"]["short_url"]) == (
        "https://example.com/b",
        "https://sho.rt/same-events",
    )


def test_a_console_bulk_create_queues_its_links_events_in_one_call(aws, browser: Browser):
    signed_in(browser, aws.new_api_key("console"))
    drained(aws)
    lines = "https://example.com/1 One\nnot a url\nhttps://example.com/2 Two"
    page = browser.post("/console/links/bulk", {"csrf": browser.csrf("/console/links/new"), "lines": lines})
    assert page["statusCode"] == 200
    changes = link_changes(drained(aws))
    assert [kind for kind, _ in changes] == ["link.created", "audit.recorded"] * 2


def test_an_import_queues_a_link_created_per_new_link_and_none_when_run_again(aws, handlers):
    key = aws.new_api_key("importer")
    drained(aws)
    body = "url,slug\nhttps://example.com/1,imported-1\nftp://example.com/2,imported-2\nhttps://example.com/3,\n"
    status, report = import_file(handlers, key, body)
    assert (status, report["created"], report["failed"]) == (200, 2, 1)
    changes = link_changes(drained(aws))
    created = [code for kind, code in changes if kind == "link.created"]
    assert created[0] == "imported-1"
    assert len(created) == 2
    assert [action for kind, action in changes if kind == "audit.recorded"] == ["link.imported"] * 2
    # Run again: every record skipped, nothing queued
    status, report = import_file(handlers, key, body)
    assert (status, report["skipped"]) == (200, 2)
    assert link_changes(drained(aws)) == []
