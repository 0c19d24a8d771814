import json
import logging
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
    assert deliver(publisher, [CLICK]) == 0
    assert publisher.sent == [CLICK]
    assert publisher.attempts == 3


def test_a_click_that_keeps_failing_becomes_one_replayable_log_line(caplog):
    publisher = FlakyPublisher(failures=99)
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        assert deliver(publisher, [CLICK]) == 1
    [line] = [record.getMessage() for record in caplog.records]
    assert json.loads(line) == {"event": LOST_CLICK_EVENT, "click": json.loads(CLICK.to_json())}


def emf_records(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]


def test_inline_dispatch_sends_and_emits_metrics_at_the_end_of_the_invocation(capsys):
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
    [record] = emf_records(capsys.readouterr().out)
    assert record["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Shortlink"
    assert (record["CacheHits"], record["ClicksDispatched"]) == ([1.0], [1.0])
    # The next invocation starts empty
    dispatcher.invocation_done()
    assert publisher.sent == [sent]
    assert emf_records(capsys.readouterr().out) == []


def test_a_lost_click_is_counted_as_a_dispatch_failure(capsys):
    dispatcher = InlineDispatcher(lambda: FlakyPublisher(failures=99))
    dispatcher.record_click("abc", REQUEST)
    dispatcher.invocation_done()
    [record] = emf_records(capsys.readouterr().out)
    assert record["ClickDispatchFailures"] == [1.0]
    assert "ClicksDispatched" not in record


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
