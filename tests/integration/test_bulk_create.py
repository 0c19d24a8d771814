"""POST /links/bulk: up to 100 links, a result per link, one bad link sinks no other."""

import json
import time

from shortlink import wiring as services
from tests.events import bearer, http_event


def bulk(handlers, key, body):
    response = handlers["CreateFunction"](
        http_event("POST", "/links/bulk", route="/links/bulk", headers=bearer(key), body=body)
    )
    return response["statusCode"], json.loads(response["body"])


def test_each_link_gets_its_own_result_in_order(aws, handlers):
    key = aws.new_api_key()
    links = [
        {"url": "https://example.com/1"},
        {"url": "ftp://example.com/2"},
        {"url": "https://example.com/3", "slug": "bulk-three"},
        {"url": "https://example.com/4", "slug": "BULK-THREE"},
        {"url": "https://example.com/5", "colour": "red"},
        {"nothing": True},
        {"url": "https://example.com/7", "redirect_type": 301},
    ]
    status, answer = bulk(handlers, key, {"links": links})
    assert status == 200
    results = answer["results"]
    assert [result["index"] for result in results] == list(range(7))
    assert [result["status"] for result in results] == [201, 422, 201, 409, 422, 422, 201]
    assert (answer["created"], answer["failed"]) == (3, 4)
    assert results[1]["error"] == "invalid_url"
    assert results[3]["error"] == "slug_taken"
    assert results[4]["message"] == "colour: unknown field"
    assert results[5]["message"].startswith("url: field required")
    assert results[2]["link"]["code"] == "bulk-three"
    assert results[6]["link"]["redirect_type"] == 301
    # The three created links and the slug's claim, nothing else.
    assert aws.item_count("LinksTable") == 4


def test_a_hundred_links_fit_and_a_hundred_and_one_do_not(aws, handlers, monkeypatch):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "0")
    services.reset()
    key = aws.new_api_key()
    hundred = [{"url": f"https://example.com/{i}/" + "x" * 2000} for i in range(100)]
    status, answer = bulk(handlers, key, {"links": hundred})
    assert (status, answer["created"]) == (200, 100)
    status, answer = bulk(handlers, key, {"links": [*hundred, {"url": "https://example.com/one-more"}]})
    assert status == 422
    assert "links" in answer["message"]
    assert aws.item_count("LinksTable") == 100


def test_the_rate_limit_applies_per_link(aws, handlers, monkeypatch):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "2")
    services.reset()
    if time.time() % 60 > 55:
        time.sleep(60 - time.time() % 60 + 0.1)
    status, answer = bulk(
        handlers, aws.new_api_key(), {"links": [{"url": f"https://example.com/{i}"} for i in range(4)]}
    )
    assert status == 200
    assert [result["status"] for result in answer["results"]] == [201, 201, 429, 429]


def test_an_empty_or_malformed_batch_is_refused(aws, handlers):
    key = aws.new_api_key()
    bodies: list[object] = [{"links": []}, {"links": "x"}, {}, [1, 2]]
    for body in bodies:
        status, answer = bulk(handlers, key, body)
        assert status == 422, body
        assert answer["error"] == "invalid_request"
    assert aws.item_count("LinksTable") == 0


def test_a_moment_outside_the_range_fails_its_own_link_only(aws, handlers):
    key = aws.new_api_key()
    links = [
        {"url": "https://example.com/1"},
        {"url": "https://example.com/2", "valid_from": "0001-01-01T00:30:00+01:00"},
        {"url": "https://example.com/3", "max_clicks": "7"},
        {"url": "https://example.com/4"},
    ]
    status, answer = bulk(handlers, key, {"links": links})
    assert status == 200
    assert [result["status"] for result in answer["results"]] == [201, 422, 422, 201]
    assert answer["results"][1]["message"].startswith("valid_from: must be between")
    assert answer["results"][2]["message"].startswith("max_clicks: ")
    assert aws.item_count("LinksTable") == 2


def test_a_batch_that_is_not_an_object_of_objects_is_refused_whole(aws, handlers):
    key = aws.new_api_key()
    for body in ([{"url": "https://example.com"}], {"links": [1, "x"]}, {"links": {"url": "https://example.com"}}):
        status, answer = bulk(handlers, key, body)
        assert (status, answer["error"]) == (422, "invalid_request"), body
    assert aws.item_count("LinksTable") == 0
