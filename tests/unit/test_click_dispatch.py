import json
import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink import click_dispatch
from shortlink.click_dispatch import LOST_CLICK_EVENT, InlineDispatcher, deliver
from shortlink.clicks import ClickEvent
from shortlink.errors import StorageUnavailable

CLICK = ClickEvent("c1", "abc", datetime(2026, 1, 1, tzinfo=UTC))
REQUEST = {
    "headers": {"user-agent": "Mozilla/5.0 (Windows NT 10.0) Firefox/126.0", "referer": "https://www.news.example/a"},
    "requestContext": {"http": {"sourceIp": "203.0.113.5", "method": "GET"}},
}


@pytest.fixture(autouse=True)
def _settings(monkeypatch):
    from shortlink import services

    for name in ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE", "CLICKS_QUEUE_URL"):
        monkeypatch.setenv(name, "unit")
    monkeypatch.setenv("VISITOR_SALT", "unit-test-visitor-salt-root")
    services.reset()
    yield
    services.reset()


class FlakyPublisher:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.sent: list[ClickEvent] = []
        self.attempts = 0

    def publish(self, click: ClickEvent) -> None:
        self.attempts += 1
        if self.failures:
            self.failures -= 1
            raise StorageUnavailable("throttled")
        self.sent.append(click)


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch):
    monkeypatch.setattr(click_dispatch, "RETRY_PAUSE_SECONDS", 0)


def test_a_failed_send_is_retried():
    publisher = FlakyPublisher(failures=2)
    assert deliver(publisher, [CLICK]) == []
    assert publisher.sent == [CLICK]
    assert publisher.attempts == 3


def test_a_click_that_keeps_failing_becomes_one_replayable_log_line(caplog):
    publisher = FlakyPublisher(failures=99)
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        carrying = replace(CLICK, counts={"CacheHits": 1})
        assert deliver(publisher, [carrying]) == [carrying]
    [line] = [record.getMessage() for record in caplog.records]
    # Without its counts: they are emitted at once, and a replay must not add them again.
    assert json.loads(line) == {"event": LOST_CLICK_EVENT, "click": json.loads(CLICK.to_json())}


def emf_records(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]


def test_inline_dispatch_sends_at_the_end_of_the_invocation_and_the_click_carries_its_metrics(capsys):
    publisher = FlakyPublisher(failures=0)
    dispatcher = InlineDispatcher(lambda: publisher)
    dispatcher.record_click("abc", REQUEST)
    dispatcher.count("CacheHits")
    assert publisher.sent == []
    dispatcher.invocation_done()
    [sent] = publisher.sent
    assert sent.code == "abc"
    assert abs((datetime.now(UTC) - sent.at).total_seconds()) < 5
    # Described after the response: what the stats count, and nothing that names the visitor.
    assert (sent.device, sent.browser, sent.os, sent.referrer, sent.bot) == (
        "desktop",
        "firefox",
        "windows",
        "news.example",
        False,
    )
    assert len(sent.visitor) == 32
    assert "203.0.113.5" not in sent.to_json()
    assert "Firefox" not in sent.to_json()
    # The invocation's metrics travel with its click (ingest emits them): no record of its own.
    assert sent.counts == {"CacheHits": 1}
    assert ClickEvent.from_json(sent.to_json()).counts == {"CacheHits": 1}
    assert emf_records(capsys.readouterr().out) == []
    # The next invocation starts empty
    dispatcher.invocation_done()
    assert publisher.sent == [sent]
    assert emf_records(capsys.readouterr().out) == []


def test_an_invocation_without_a_click_emits_its_own_metrics(capsys):
    dispatcher = InlineDispatcher(lambda: FlakyPublisher(failures=0))
    dispatcher.count("NotFound")
    dispatcher.invocation_done()
    [record] = emf_records(capsys.readouterr().out)
    assert record["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Shortlink"
    assert (record["NotFound"], record["service"]) == ([1.0], "redirect")


def test_a_lost_click_is_counted_as_a_dispatch_failure_and_its_metrics_are_emitted(capsys):
    dispatcher = InlineDispatcher(lambda: FlakyPublisher(failures=99))
    dispatcher.record_click("abc", REQUEST)
    dispatcher.count("CacheMisses")
    dispatcher.invocation_done()
    [record] = emf_records(capsys.readouterr().out)
    assert (record["ClickDispatchFailures"], record["CacheMisses"]) == ([1.0], [1.0])


def test_carried_counts_are_kept_only_when_well_formed():
    body = json.loads(CLICK.to_json())
    assert "counts" not in body  # nothing carried, nothing written
    body["counts"] = {"CacheHits": 1, "CacheMisses": 10**9, "NotFound": 1, "Made Up": 1, "Text": "1"}
    assert ClickEvent.from_json(json.dumps(body)).counts == {"CacheHits": 1}
    body["counts"] = {"CacheHits": True, "CacheMisses": -1}
    assert ClickEvent.from_json(json.dumps(body)).counts == {}
    body["counts"] = ["CacheHits"]
    assert ClickEvent.from_json(json.dumps(body)).counts == {}


def test_visitor_chosen_values_are_kept_short_and_plain():
    from shortlink.click_context import primary_language, referrer_host

    assert referrer_host("https://www.News.example:8443/a?b") == "news.example"
    assert referrer_host("") == "(direct)"
    assert referrer_host("https://" + "x" * 150 + ".example/") == "unknown"
    assert referrer_host("http://[::1") == "unknown"
    assert referrer_host("android-app://com.google.android.gm/") == "com.google.android.gm"
    assert (primary_language(("de-at", "en")), primary_language(("x-klingon",)), primary_language(())) == (
        "de",
        "unknown",
        "unknown",
    )
