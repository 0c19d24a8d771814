"""Webhooks against moto: endpoints registered through the API, events queued by create, manage
and ingest, fanned out and delivered by the webhooks function (polled as Lambda's SQS poller
does) to a receiver on 127.0.0.1 that checks each signature with the standardwebhooks verifier."""

import json
import threading
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

import pytest

from shortlink import wiring as services
from shortlink.adapters.http.webhooks import HttpWebhookSender
from shortlink.adapters.sqs.webhooks import SqsWebhookQueue
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.errors import StorageUnavailable
from shortlink.webhooks.deliveries import MAX_ATTEMPTS, RETRY_DELAYS_SECONDS
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tests.integration.ingest_faults import record
from tests.webhook_receiver import webhook_receiver
from tools.developers.devstack.sqs_trigger import SqsPoller, sqs_event
from tools.developers.devstack.template import SqsTrigger

QUEUE = "WebhookDeliveryQueue"
ARN = "arn:aws:sqs:us-east-1:123456789012:WebhookDeliveryQueue"
AT = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def loopback(aws, monkeypatch):
    """The local stack's allowance: receivers on 127.0.0.1 (never set in a deployed stack)."""
    monkeypatch.setenv("SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK", "true")
    services.reset()
    return aws


class Functions:
    def __init__(self, handlers):
        self._handlers = handlers

    def call(self, function_name, event):
        return self._handlers[function_name](event)


def pump(aws, handlers, rounds: int = 10) -> int:
    """Run the webhooks function over its queue until it is empty (failed messages stay
    invisible for their retry delay); the messages it was given."""
    trigger = SqsTrigger("WebhooksFunction", QUEUE, 10, True)
    poller = SqsPoller(trigger, aws.queue_urls[QUEUE], aws.sqs, Functions(handlers), "us-east-1")
    given = 0
    for _ in range(rounds):
        delivered = poller.poll_once()
        if not delivered:
            break
        given += delivered
    return given


def api(handlers, method, path, key, body=None, route=None, params=None):
    event = http_event(method, path, route=route, path_parameters=params, headers=bearer(key), body=body)
    function = "WebhookEndpointsFunction" if path.startswith("/webhooks") else None
    if function is None:
        function = "CreateFunction" if method == "POST" and path == "/links" else "ManageFunction"
    answer = handlers[function](event)
    return answer["statusCode"], json.loads(answer["body"]) if answer.get("body") else None


def register(handlers, key, url, **fields):
    status, body = api(handlers, "POST", "/webhooks", key, {"url": url, **fields})
    assert status == 201, body
    return body


def create_link(handlers, key, **fields):
    status, body = api(handlers, "POST", "/links", key, {"url": "https://example.com/page", **fields})
    assert status == 201, body
    return body["code"]


def queued(aws) -> list[dict[str, Any]]:
    answer = aws.sqs.receive_message(QueueUrl=aws.queue_urls[QUEUE], MaxNumberOfMessages=10, AttributeNames=["All"])
    messages: list[dict[str, Any]] = answer.get("Messages", [])
    return messages


def test_link_events_reach_the_endpoint_signed_with_its_secret_in_order_of_writes(loopback, handlers):
    key = loopback.new_api_key()
    with webhook_receiver() as receiver:
        endpoint = register(handlers, key, receiver.url, events=["link.created", "link.updated", "link.deleted"])
        assert endpoint["secret"].startswith("whsec_")
        assert endpoint["disabled"] is False
        code = create_link(handlers, key, tags=["promo"])
        # The endpoint's and the link's audit.recorded events (which it does not want), the link's
        # event, then its one delivery
        assert pump(loopback, handlers) == 4
        assert api(handlers, "PATCH", f"/links/{code}", key, {"title": "t"}, "/links/{code}", {"code": code})[0] == 200
        assert api(handlers, "DELETE", f"/links/{code}", key, route="/links/{code}", params={"code": code})[0] == 204
        pump(loopback, handlers)
        payloads = receiver.verified(endpoint["secret"])
    assert sorted(payload["type"] for payload in payloads) == ["link.created", "link.deleted", "link.updated"]
    assert {payload["data"]["code"] for payload in payloads} == {code}
    assert len({request.headers["webhook-id"] for request in receiver.requests}) == 3
    # The secret is shown once: never in a listing.
    status, listing = api(handlers, "GET", "/webhooks", key)
    assert status == 200
    assert "secret" not in json.dumps(listing)


def test_a_create_costs_one_send_message_and_a_bulk_create_one_call_for_all_its_links(loopback, handlers):
    key = loopback.new_api_key()
    with recording_aws_calls() as calls:
        create_link(handlers, key)
    # The link's event and its audit entry's, in one call
    sqs_calls = {operation: n for (service, operation), n in calls.counts().items() if service == "sqs"}
    assert sqs_calls == {"SendMessageBatch": 1}
    bulk = {"links": [{"url": f"https://example.com/{i}"} for i in range(5)]}
    event = http_event("POST", "/links/bulk", headers=bearer(key), body=bulk)
    with recording_aws_calls() as calls:
        assert handlers["CreateFunction"](event)["statusCode"] == 200
    sqs_calls = {operation: n for (service, operation), n in calls.counts().items() if service == "sqs"}
    assert sqs_calls == {"SendMessageBatch": 1}


def test_endpoint_urls_pass_the_destination_checks_and_more(aws, handlers):
    key = aws.new_api_key()
    for url, message in [
        ("http://hooks.example.com/x", "https"),
        ("https://127.0.0.1/x", "loopback"),
        ("https://10.1.2.3/x", "not a public address"),
        ("https://169.254.169.254/latest/meta-data", "not a public address"),
        ("https://[fd00:ec2::254]/", "not a public address"),
        ("https://metadata.google.internal/", "private name"),
        ("https://sho.rt/hook", "back at this shortener"),
    ]:
        status, body = api(handlers, "POST", "/webhooks", key, {"url": url})
        assert (status, body["error"]) == (422, "invalid_url"), url
        assert message in body["message"], (url, body)
    status, body = api(handlers, "POST", "/webhooks", key, {"url": "https://hooks.example.com/x", "events": ["x"]})
    assert (status, body["error"]) == (422, "invalid_request")
    assert body["message"].startswith("events.0")
    assert aws.item_count("WebhooksTable") == 0


def test_an_endpoint_is_deleted_by_its_own_key_only(aws, handlers):
    key, other = aws.new_api_key(), aws.new_api_key("other")
    endpoint = register(handlers, key, "https://hooks.example.com/x", events=["link.clicked"], tags=["a"])
    assert (endpoint["events"], endpoint["tags"]) == (["link.clicked"], ["a"])
    route, params = "/webhooks/{endpoint_id}", {"endpoint_id": endpoint["id"]}
    assert api(handlers, "DELETE", f"/webhooks/{endpoint['id']}", other, route=route, params=params)[0] == 404
    assert api(handlers, "DELETE", f"/webhooks/{endpoint['id']}", key, route=route, params=params)[0] == 204
    assert api(handlers, "GET", "/webhooks", key) == (200, {"webhooks": []})


def test_a_redelivered_event_or_delivery_keeps_its_webhook_id(loopback, handlers):
    key = loopback.new_api_key()
    with webhook_receiver() as receiver:
        endpoint = register(handlers, key, receiver.url)
        create_link(handlers, key)
        [event] = [message for message in queued(loopback) if json.loads(message["Body"])["type"] == "link.created"]
        # SQS offers the event twice (at-least-once): two deliveries, one id.
        handlers["WebhooksFunction"](as_attempt(event, 1))
        handlers["WebhooksFunction"](as_attempt(event, 2))
        deliveries = queued(loopback)
        assert len(deliveries) == 2
        for delivery in deliveries:  # each delivered, and the first offered once more
            handlers["WebhooksFunction"](as_attempt(delivery, 1))
        handlers["WebhooksFunction"](as_attempt(deliveries[0], 2))
        receiver.verified(endpoint["secret"])
    assert len(receiver.requests) == 3
    assert len({request.headers["webhook-id"] for request in receiver.requests}) == 1


def test_a_failing_receiver_is_retried_with_backoff_then_disabled_and_shown_so(loopback, handlers):
    key = loopback.new_api_key()
    with webhook_receiver() as receiver:
        receiver.status = 500
        endpoint = register(handlers, key, receiver.url, events=["link.created"])
        create_link(handlers, key)
        pump(loopback, handlers)  # fan-out, then the first attempt
        assert len(receiver.requests) == 1
        [delivery] = redeliverable(loopback)
        delays = []
        with mock.patch.object(SqsWebhookQueue, "retry_after", lambda self, handle, seconds: delays.append(seconds)):
            for attempt in range(2, MAX_ATTEMPTS + 1):  # SQS offers it again, each time counted
                answer = handlers["WebhooksFunction"](as_attempt(delivery, attempt))
                assert answer["batchItemFailures"] == [{"itemIdentifier": delivery["MessageId"]}]
        receiver.verified(endpoint["secret"])
    assert len(receiver.requests) == MAX_ATTEMPTS
    assert len({request.headers["webhook-id"] for request in receiver.requests}) == 1
    assert delays == list(RETRY_DELAYS_SECONDS[1:])  # the first delay was set by the pumped attempt
    [shown] = api(handlers, "GET", "/webhooks", key)[1]["webhooks"]
    assert shown["disabled"] is True
    assert shown["disabled_at"]
    # A disabled endpoint gets nothing more: no delivery is even queued for it.
    create_link(handlers, key)
    pump(loopback, handlers)
    assert len(receiver.requests) == MAX_ATTEMPTS


def redeliverable(aws):
    """The messages left invisible by a failed attempt, taken back at once (as if their retry
    delay had passed)."""
    url = aws.queue_urls[QUEUE]
    attributes = aws.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"])
    assert int(attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"]) == 1
    from moto.sqs.models import sqs_backends

    queue = sqs_backends["123456789012"]["us-east-1"].queues[QUEUE]
    for message in queue._messages:
        message.change_visibility(0)
    return queued(aws)


def as_attempt(message, attempt):
    """A Lambda SQS event of the message on its `attempt`th receive."""
    event = sqs_event([message], ARN, "us-east-1")
    event["Records"][0]["attributes"]["ApproximateReceiveCount"] = str(attempt)
    return event


def test_ten_thousand_clicks_give_one_delivery_per_endpoint_per_ingest_batch_with_the_stats_totals(loopback, handlers):
    key, other = loopback.new_api_key(), loopback.new_api_key("other")
    # Few links, each a hot day (ingest's transactions are what moto is slow at).
    codes = [create_link(handlers, key, tags=["promo"] if i % 2 else []) for i in range(4)]
    stranger = create_link(handlers, other)
    with webhook_receiver() as every, webhook_receiver() as promo:
        register(handlers, key, every.url, events=["link.clicked"])
        register(handlers, key, promo.url, events=["link.clicked"], tags=["promo"])
        pump(loopback, handlers)  # the link.created events: nobody wants them
        packs = []
        for p in range(100):
            clicks = [ClickEvent(uuid.uuid4().hex, [*codes, stranger][(p * 100 + i) % 5], AT) for i in range(100)]
            packs.append(record(f"pack{p}", ClickPack(f"pack{p}", tuple(clicks)).to_json()))
        batches = [packs[:50], packs[50:]]
        batches.append(packs[:10])  # SQS offers ten packs again: they count nothing, so send nothing
        with recording_aws_calls() as calls:
            for batch in batches:
                assert handlers["IngestFunction"]({"Records": batch})["batchItemFailures"] == []
        assert calls.counts()[("sqs", "SendMessage")] == 2  # one event per batch that counted clicks
        pump(loopback, handlers, rounds=20)
    day = AT.strftime("%Y-%m-%d")
    stats = {code: clicks_of(code, day) for code in [*codes, stranger]}
    assert sum(stats.values()) == 10_000
    for receiver, wanted in ((every, codes), (promo, codes[1::2])):
        assert len(receiver.requests) == 2  # one per ingest batch, never one per click
        delivered: Counter[str] = Counter()
        for request in receiver.of_type("link.clicked"):
            data = json.loads(request.body)["data"]
            assert data["clicks"] == sum(link["clicks"] for link in data["links"])
            delivered.update({link["code"]: link["clicks"] for link in data["links"]})
        assert delivered == {code: stats[code] for code in wanted}  # the other key's link: never


def clicks_of(code, day):
    return sum(counted.counters["clicks"] for counted in services.click_stats().days(code, day, day))


def test_the_sender_follows_no_redirect_and_reads_little_of_an_answer():
    # Given a receiver that redirects, and one that answers with 64 MiB
    written: list[int] = []

    class Answers(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["content-length"]))
            if self.path == "/moved":
                self.send_response(302)
                self.send_header("location", "/elsewhere")
                self.send_header("content-length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-length", str(64 << 20))
            self.end_headers()
            sent = 0
            try:
                while sent < 64 << 20:
                    self.wfile.write(b"x" * 65536)
                    sent += 65536
            except OSError:  # the sender hung up
                pass
            written.append(sent)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    sender = HttpWebhookSender(allow_loopback=True)
    try:
        # Then a redirect is a failure, not followed
        moved = sender.send(f"{base}/moved", {}, "{}")
        assert (moved.ok, moved.status) == (False, 302)
        # And of a huge answer only a little is read before the connection closes
        assert sender.send(f"{base}/big", {}, "{}").ok
        for _ in range(100):  # the receiver notices the hang-up on its next write
            if written:
                break
            time.sleep(0.1)
    finally:
        server.shutdown()
        server.server_close()
    assert len(written) == 1
    assert written[0] < 64 << 20


def test_an_event_that_cannot_be_queued_never_fails_the_write_it_tells_of(aws, handlers, caplog):
    key = aws.new_api_key()
    refused = StorageUnavailable("SQS throttled")
    with mock.patch.object(SqsWebhookQueue, "send", side_effect=refused) as send:
        code = create_link(handlers, key)
        status, _ = api(handlers, "DELETE", f"/links/{code}", key, route="/links/{code}", params={"code": code})
    assert status == 204
    assert send.call_count == 2
    assert aws.item_count("LinksTable") == 1
    logged = [r.message for r in caplog.records if r.name == "shortlink.webhooks.emitting"]
    assert logged == ["webhook events not queued"] * 2


def endpoint_call(handlers, method, endpoint_id, key, body=None, suffix=""):
    route = "/webhooks/{endpoint_id}" + suffix
    params = {"endpoint_id": endpoint_id}
    return api(handlers, method, f"/webhooks/{endpoint_id}{suffix}", key, body, route, params)


def test_a_new_secret_signs_beside_the_old_one_until_the_receiver_has_switched(loopback, handlers):
    key, other = loopback.new_api_key(), loopback.new_api_key("other")
    with webhook_receiver() as receiver:
        endpoint = register(handlers, key, receiver.url, events=["link.created"])
        # Another account's key, or an id that is no endpoint, rotates nothing
        assert endpoint_call(handlers, "POST", endpoint["id"], other, suffix="/secret")[0] == 404
        assert endpoint_call(handlers, "POST", "ep_" + "0" * 32, key, suffix="/secret")[0] == 404
        status, rotated = endpoint_call(handlers, "POST", endpoint["id"], key, suffix="/secret")
        assert status == 200, rotated
        assert rotated["secret"].startswith("whsec_")
        assert rotated["secret"] != endpoint["secret"]
        until = datetime.fromisoformat(rotated["previous_secret_valid_until"])
        assert 23 * 3600 < (until - datetime.now(UTC)).total_seconds() <= 24 * 3600
        create_link(handlers, key)
        pump(loopback, handlers)
        # The delivery verifies with either secret: the receiver may switch when it likes
        assert [p["type"] for p in receiver.verified(endpoint["secret"])] == ["link.created"]
        assert [p["type"] for p in receiver.verified(rotated["secret"])] == ["link.created"]
    # The secret is shown this once; the audit log says it was rotated, never what it is
    assert rotated["secret"] not in json.dumps(api(handlers, "GET", "/webhooks", key)[1])
    audit = http_event("GET", "/audit", headers=bearer(key))
    entries = json.loads(handlers["KeysFunction"](audit)["body"])["entries"]
    assert ("webhook.secret_rotated", endpoint["id"]) in [(e["action"], e["target"]["id"]) for e in entries]
    assert rotated["secret"] not in json.dumps(entries)


def test_an_endpoint_is_changed_by_its_own_account_with_the_checks_of_a_new_one(aws, handlers):
    key, other = aws.new_api_key(), aws.new_api_key("other")
    endpoint = register(handlers, key, "https://hooks.example.com/x", events=["link.created"], tags=["a"])
    for body, problem in [
        ({}, "at least one"),
        ({"url": None}, "cannot be null"),
        ({"events": []}, "events"),
        ({"events": ["link.exploded"]}, "events.0"),
        ({"enabled": False}, "enabled"),
        ({"secret": "whsec_mine"}, "secret"),
    ]:
        status, answer = endpoint_call(handlers, "PATCH", endpoint["id"], key, body)
        assert (status, answer["error"]) == (422, "invalid_request"), (body, answer)
        assert problem in answer["message"], (body, answer)
    for url in ("https://169.254.169.254/latest", "https://127.0.0.1/x", "https://sho.rt/hook"):
        status, answer = endpoint_call(handlers, "PATCH", endpoint["id"], key, {"url": url})
        assert (status, answer["error"]) == (422, "invalid_url"), url
    assert endpoint_call(handlers, "PATCH", endpoint["id"], other, {"tags": []})[0] == 404
    # Unchanged so far; then a new address, every event and every link
    [listed] = api(handlers, "GET", "/webhooks", key)[1]["webhooks"]
    assert (listed["url"], listed["events"], listed["tags"]) == ("https://hooks.example.com/x", ["link.created"], ["a"])
    change = {"url": "https://hooks.example.com/y", "events": ["link.created", "link.deleted"], "tags": []}
    status, changed = endpoint_call(handlers, "PATCH", endpoint["id"], key, change)
    assert status == 200, changed
    assert (changed["url"], changed["events"], changed["tags"]) == (change["url"], change["events"], [])
    assert api(handlers, "GET", "/webhooks", key)[1]["webhooks"] == [changed]
    # The same body again changes nothing and is recorded once
    assert endpoint_call(handlers, "PATCH", endpoint["id"], key, change) == (200, changed)
    audit = http_event("GET", "/audit", headers=bearer(key))
    entries = json.loads(handlers["KeysFunction"](audit)["body"])["entries"]
    edits = [e["changed"] for e in entries if e["action"] == "webhook.changed"]
    assert edits == [["events", "tags", "url"]]  # by name


def test_a_disabled_endpoint_is_enabled_again_and_then_delivered_to(loopback, handlers):
    key = loopback.new_api_key()
    with webhook_receiver() as receiver:
        endpoint = register(handlers, key, receiver.url, events=["link.created"])
        store = services.webhook_endpoints()
        store.disable(loopback_owner(key), endpoint["id"], datetime.now(UTC))
        assert api(handlers, "GET", "/webhooks", key)[1]["webhooks"][0]["disabled"] is True
        status, enabled = endpoint_call(handlers, "PATCH", endpoint["id"], key, {"enabled": True})
        assert status == 200, enabled
        assert (enabled["disabled"], enabled["disabled_at"]) == (False, None)
        create_link(handlers, key)
        pump(loopback, handlers)
        assert [p["type"] for p in receiver.verified(endpoint["secret"])] == ["link.created"]


def loopback_owner(key: str) -> str:
    from shortlink.access.api_keys import hash_api_key

    found = services.api_key_store().find_by_hash(hash_api_key(key))
    assert found is not None
    return found.owner
