"""Webhooks through `make dev`'s stack on moto, over real HTTP: an endpoint registered with the
API gets the link's creation and its clicks, each signature checked by the standardwebhooks
verifier, the clicks delivered equal to the stats."""

import json
import time

import pytest

from tests.e2e.running_stack import RunningStack
from tests.webhook_receiver import Receiver, webhook_receiver

FOLLOWS = 5


def wait_for(receiver: Receiver, clicks: int, timeout: float = 30) -> int:
    """The clicks delivered so far, once they reach `clicks` or the time is up."""
    deadline = time.monotonic() + timeout
    delivered = 0
    while time.monotonic() < deadline:
        delivered = sum(json.loads(r.body)["data"]["clicks"] for r in receiver.of_type("link.clicked"))
        if delivered >= clicks and receiver.of_type("link.created"):
            break
        time.sleep(0.25)
    return delivered


def test_a_receiver_on_loopback_gets_signed_link_and_click_events(stack: RunningStack, store, auth):
    if store:
        pytest.skip("once is enough: webhooks store nothing dynalite would refuse and moto accept")
    with webhook_receiver() as receiver:
        registered = stack.request("POST", "/webhooks", {"url": receiver.url, "tags": ["hooked"]}, auth)
        assert registered.status == 201, registered.body
        secret = registered.json()["secret"]
        created = stack.request("POST", "/links", {"url": "https://example.com/hooked", "tags": ["hooked"]}, auth)
        assert created.status == 201, created.body
        code = created.json()["code"]
        for _ in range(FOLLOWS):
            assert stack.request("GET", f"/{code}").status == 302
        assert wait_for(receiver, FOLLOWS) == FOLLOWS
        payloads = receiver.verified(secret)
    assert [p["data"]["code"] for p in payloads if p["type"] == "link.created"] == [code]
    delivered = {link["code"] for p in payloads if p["type"] == "link.clicked" for link in p["data"]["links"]}
    assert delivered == {code}
    stats = stack.request("GET", f"/links/{code}/stats", headers=auth).json()
    assert stats["clicks"] == FOLLOWS
    [shown] = [
        w for w in stack.request("GET", "/webhooks", headers=auth).json()["webhooks"] if w["url"] == receiver.url
    ]
    assert shown["disabled"] is False
    # The shared stack's key keeps no endpoint pointing at a closed receiver.
    assert stack.request("DELETE", f"/webhooks/{shown['id']}", headers=auth).status == 204
