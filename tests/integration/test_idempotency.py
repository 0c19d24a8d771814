"""POST /links with an Idempotency-Key: a retry gets the first answer and no second link."""

import json

from shortlink import wiring as services
from tests.events import bearer, http_event


def create(handlers, key, body, idempotency_key=None):
    headers = bearer(key)
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    response = handlers["CreateFunction"](http_event("POST", "/links", headers=headers, body=body))
    return response["statusCode"], json.loads(response["body"])


def link_count(aws):
    return aws.item_count("LinksTable")


def test_a_retry_returns_the_first_answer_and_creates_nothing(aws, handlers):
    key = aws.new_api_key()
    body = {"url": "https://example.com/once", "tags": ["a"]}
    first = create(handlers, key, body, "order-42")
    again = create(handlers, key, body, "order-42")
    assert first[0] == again[0] == 201
    assert first[1] == again[1]
    assert link_count(aws) == 1
    assert aws.item_count("IdempotencyTable") == 1


def test_the_same_key_with_another_body_is_refused(aws, handlers):
    key = aws.new_api_key()
    create(handlers, key, {"url": "https://example.com/a"}, "k-1")
    status, refused = create(handlers, key, {"url": "https://example.com/b"}, "k-1")
    assert (status, refused["error"]) == (422, "idempotency_key_reused")
    assert link_count(aws) == 1


def test_keys_are_scoped_to_the_api_key(aws, handlers):
    body = {"url": "https://example.com/shared"}
    one = create(handlers, aws.new_api_key("one"), body, "same")
    two = create(handlers, aws.new_api_key("two"), body, "same")
    assert one[1]["code"] != two[1]["code"]
    assert link_count(aws) == 2


def test_without_a_key_every_request_creates(aws, handlers):
    key = aws.new_api_key()
    body = {"url": "https://example.com/twice"}
    assert create(handlers, key, body)[1]["code"] != create(handlers, key, body)[1]["code"]
    assert aws.item_count("IdempotencyTable") == 0


def test_a_refused_create_is_not_remembered(aws, handlers):
    key = aws.new_api_key()
    create(handlers, key, {"url": "https://example.com/x", "slug": "taken"})
    body = {"url": "https://example.com/y", "slug": "taken"}
    assert create(handlers, key, body, "retry-me")[0] == 409
    assert create(handlers, key, body, "retry-me")[0] == 409
    assert aws.item_count("IdempotencyTable") == 0


def test_malformed_keys_are_refused(aws, handlers):
    key = aws.new_api_key()
    for bad in ("", "has space", "x" * 256, "naïve"):
        status, refused = create(handlers, key, {"url": "https://example.com"}, bad)
        assert status == 422, bad
        assert "Idempotency-Key" in refused["message"]
    assert link_count(aws) == 0


def test_an_unreachable_idempotency_store_is_a_503_and_creates_nothing(aws, handlers, monkeypatch):
    monkeypatch.setenv("IDEMPOTENCY_TABLE", "NoSuchIdempotencyTable")
    services.reset()
    status, answer = create(handlers, aws.new_api_key(), {"url": "https://example.com/x"}, "k-503")
    assert (status, answer["error"]) == (503, "unavailable")
    assert link_count(aws) == 0
