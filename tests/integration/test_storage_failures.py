"""A store that fails is a 503 "retry" to the caller and an error with its cause in the logs."""

import json
import logging

import pytest

from shortlink import wiring as services
from tests.events import bearer, http_event


def call(handlers, name, method, path, key, route=None, path_parameters=None, body=None):
    event = http_event(method, path, route=route, path_parameters=path_parameters, headers=bearer(key), body=body)
    response = handlers[name](event, None)
    return response["statusCode"], json.loads(response["body"])


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


def test_a_failed_stats_read_is_a_503_with_its_cause_logged(aws, handlers, monkeypatch, caplog):
    # Given a link, and a click-stats table that cannot be read
    key = aws.new_api_key()
    status, link = call(handlers, "CreateFunction", "POST", "/links", key, body={"url": "https://example.com/s"})
    assert status == 201
    monkeypatch.setenv("CLICK_STATS_TABLE", "NoSuchClickStatsTable")
    services.reset()
    # When its stats are asked for
    with caplog.at_level(logging.ERROR):
        status, answer = call(
            handlers,
            "ManageFunction",
            "GET",
            f"/links/{link['code']}/stats",
            key,
            route="/links/{code}/stats",
            path_parameters={"code": link["code"]},
        )
    # Then the caller is told to retry, and the log says what failed
    assert (status, answer["error"]) == (503, "unavailable")
    logged = failures(caplog)
    assert len(logged) == 1, logged
    assert "click counters not read" in logged[0]
    assert "ResourceNotFoundException" in logged[0]


def test_a_failed_write_in_a_bulk_request_is_logged_for_its_item(aws, handlers, monkeypatch, caplog):
    key = aws.new_api_key()
    monkeypatch.setenv("LINKS_TABLE", "NoSuchLinksTable")
    services.reset()
    with caplog.at_level(logging.ERROR):
        status, answer = call(
            handlers, "CreateFunction", "POST", "/links/bulk", key, body={"links": [{"url": "https://example.com/b"}]}
        )
    assert status == 200
    assert [(item["status"], item["error"]) for item in answer["results"]] == [(503, "unavailable")]
    assert len(failures(caplog)) == 1, failures(caplog)
