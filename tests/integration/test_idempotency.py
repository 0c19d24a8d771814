"""POST /links with an Idempotency-Key: a retry gets the first answer and no second link."""

from shortlink import wiring as services


def link_count(aws):
    return aws.item_count("LinksTable")


def test_a_retry_returns_the_first_answer_and_creates_nothing(aws, handlers, api):
    key = aws.new_api_key()
    body = {"url": "https://example.com/once", "tags": ["a"]}
    first = api.create(key, headers={"Idempotency-Key": "order-42"}, **body).status_and_json()
    again = api.create(key, headers={"Idempotency-Key": "order-42"}, **body).status_and_json()
    assert first[0] == again[0] == 201
    assert first[1] == again[1]
    assert link_count(aws) == 1
    assert aws.item_count("IdempotencyTable") == 1


def test_the_same_key_with_another_body_is_refused(aws, handlers, api):
    key = aws.new_api_key()
    api.create(key, headers={"Idempotency-Key": "k-1"}, url="https://example.com/a")
    status, refused = api.create(key, headers={"Idempotency-Key": "k-1"}, url="https://example.com/b").status_and_json()
    assert (status, refused["error"]) == (422, "idempotency_key_reused")
    assert link_count(aws) == 1


def test_keys_are_scoped_to_the_api_key(aws, handlers, api):
    body = {"url": "https://example.com/shared"}
    one = api.create(aws.new_api_key("one"), headers={"Idempotency-Key": "same"}, **body).status_and_json()
    two = api.create(aws.new_api_key("two"), headers={"Idempotency-Key": "same"}, **body).status_and_json()
    assert one[1]["code"] != two[1]["code"]
    assert link_count(aws) == 2


def test_without_a_key_every_request_creates(aws, handlers, api):
    key = aws.new_api_key()
    body = {"url": "https://example.com/twice"}
    assert api.create(key, **body).json()["code"] != api.create(key, **body).json()["code"]
    assert aws.item_count("IdempotencyTable") == 0


def test_a_refused_create_is_not_remembered(aws, handlers, api):
    key = aws.new_api_key()
    api.create(key, url="https://example.com/x", slug="taken")
    body = {"url": "https://example.com/y", "slug": "taken"}
    assert api.create(key, headers={"Idempotency-Key": "retry-me"}, **body).status == 409
    assert api.create(key, headers={"Idempotency-Key": "retry-me"}, **body).status == 409
    assert aws.item_count("IdempotencyTable") == 0


def test_malformed_keys_are_refused(aws, handlers, api):
    key = aws.new_api_key()
    for bad in ("", "has space", "x" * 256, "naïve"):
        status, refused = api.create(key, headers={"Idempotency-Key": bad}, url="https://example.com").status_and_json()
        assert status == 422, bad
        assert "Idempotency-Key" in refused["message"]
    assert link_count(aws) == 0


def test_an_unreachable_idempotency_store_is_a_503_and_creates_nothing(aws, handlers, monkeypatch, api):
    monkeypatch.setenv("IDEMPOTENCY_TABLE", "NoSuchIdempotencyTable")
    services.reset()
    status, answer = api.create(
        aws.new_api_key(), headers={"Idempotency-Key": "k-503"}, url="https://example.com/x"
    ).status_and_json()
    assert (status, answer["error"]) == (503, "unavailable")
    assert link_count(aws) == 0
