"""Bad input gets a clear 4xx JSON error naming the problem, and nothing is written."""

import json

import pytest

from tests.events import bearer, http_event


def post(handlers, body, headers=None, base64_body=False):
    event = http_event("POST", "/links", headers=headers, body=body, base64_body=base64_body)
    if headers and "content-type" in headers:
        event["headers"]["content-type"] = headers["content-type"]
    response = handlers["CreateFunction"](event, None)
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize(
    ("body", "status", "mentions"),
    [
        ("", 422, "JSON object"),
        ("not json", 422, "JSON object"),
        ("[1, 2]", 422, "JSON object"),
        ({}, 422, "url: field required"),
        ({"url": 42}, 422, "url"),
        ({"url": "https://example.com", "extra": 1}, 422, "extra: unknown field"),
        ({"url": "ftp://example.com"}, 422, "absolute http or https"),
        ({"url": "example.com"}, 422, "absolute http or https"),
        ({"url": "https://user:pw@example.com"}, 422, "credentials"),
        ({"url": "https://example.com/" + "a" * 2100}, 422, "2048"),
        ('{"url": "https://example.com"' + " " * 17000 + "}", 413, "16384 bytes"),
    ],
)
def test_invalid_requests_are_refused_and_write_nothing(aws, handlers, body, status, mentions):
    key = aws.new_api_key()
    code, answer = post(handlers, body, bearer(key))
    assert code == status
    assert mentions in answer["message"]
    assert answer["error"]
    assert aws.item_count("LinksTable") == 0
    assert aws.item_count("CountersTable") == 0


@pytest.mark.parametrize(
    "headers", [None, {"authorization": "Bearer sl_wrong"}, {"authorization": "Basic abc"}, {"authorization": ""}]
)
def test_missing_or_wrong_key_is_401_even_for_a_bad_body(aws, handlers, headers):
    for body in ({"url": "https://example.com"}, {"nope": 1}, "garbage"):
        code, answer = post(handlers, body, headers)
        assert code == 401
        assert answer["error"] == "unauthorized"
    assert aws.item_count("LinksTable") == 0


def test_a_form_body_is_415(aws, handlers):
    code, answer = post(
        handlers,
        "url=https://example.com",
        {**bearer(aws.new_api_key()), "content-type": "application/x-www-form-urlencoded"},
    )
    assert code == 415
    assert "application/json" in answer["message"]


def test_base64_bodies_are_decoded(aws, handlers):
    code, answer = post(handlers, {"url": "https://example.com/b64"}, bearer(aws.new_api_key()), base64_body=True)
    assert code == 201
    assert answer["url"] == "https://example.com/b64"


def test_an_exhausted_code_space_is_a_503_not_a_crash(aws, handlers):
    # Given the id counter already past the last 7-character code
    aws.dynamodb.put_item(TableName="CountersTable", Item={"name": {"S": "link-ids"}, "value": {"N": str(62**7)}})
    code, answer = post(handlers, {"url": "https://example.com"}, bearer(aws.new_api_key()))
    assert code == 503
    assert answer["error"] == "no_free_code"
    assert aws.item_count("LinksTable") == 0
