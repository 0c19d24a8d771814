import json
import logging
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink.clicks import metrics as deferred_metrics
from shortlink.clicks.events import ClickEvent, ClickPack, OrphanVisit
from shortlink.clicks.packing import PackingRules
from shortlink.errors import ConfigurationError, StorageUnavailable
from shortlink.redirect import click_extension, click_sending
from shortlink.redirect.click_dispatch import ClickProviders, InlineDispatcher
from shortlink.redirect.click_extension import ExtensionDispatcher
from shortlink.redirect.click_sending import deliver
from shortlink.redirect.lost_clicks import LOST_CLICK_EVENT, log_lost
from shortlink.redirect.request import RedirectRequest, RequestReading
from shortlink.settings.metrics import RedirectMetricSettings
from shortlink.wiring import click_reading, redirect_metric_settings, visitor_salt_root

CLICK = ClickEvent("c1", "abc", datetime(2026, 1, 1, tzinfo=UTC))
PACK = ClickPack("p1", (CLICK,))
REQUEST_EVENT = {
    "headers": {"user-agent": "Mozilla/5.0 (Windows NT 10.0) Firefox/126.0", "referer": "https://www.news.example/a"},
    "requestContext": {"http": {"sourceIp": "203.0.113.5", "method": "GET"}},
}


def providers(publisher: Callable[[], Any]) -> ClickProviders:
    """The composition root's providers with `publisher` in place of the queue's."""
    return ClickProviders(publisher, visitor_salt_root, click_reading, redirect_metric_settings)


def click_request() -> RedirectRequest:
    """A follow's request as the redirect reads it, fresh: nothing of it read yet."""
    return RedirectRequest(REQUEST_EVENT, RequestReading())


@pytest.fixture(autouse=True)
def _settings(monkeypatch):
    from shortlink import wiring as services

    for name in ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE", "CLICKS_QUEUE_URL"):
        monkeypatch.setenv(name, "unit")
    monkeypatch.setenv("VISITOR_SALT", "unit-test-visitor-salt-root")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "redirect")  # the template's, for the redirect
    services.reset()
    deferred_metrics._metrics.cache_clear()
    yield
    services.reset()
    deferred_metrics._metrics.cache_clear()


class FlakyPublisher:
    """Fails `failures` times, then queues; `arrives_anyway` makes a failed send arrive too (a
    timeout after SQS took the message)."""

    def __init__(self, failures: int, arrives_anyway: bool = False) -> None:
        self.failures = failures
        self.arrives_anyway = arrives_anyway
        self.sent: list[ClickPack] = []
        self.attempts = 0

    def publish(self, pack: ClickPack) -> None:
        self.attempts += 1
        if self.failures:
            self.failures -= 1
            if self.arrives_anyway:
                self.sent.append(pack)
            raise StorageUnavailable("throttled")
        self.sent.append(pack)

    def clicks(self) -> list[ClickEvent]:
        return [click for pack in self.sent for click in pack.clicks]


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch):
    monkeypatch.setattr(click_sending, "RETRY_PAUSE_SECONDS", 0)


def test_a_failed_send_is_retried():
    publisher = FlakyPublisher(failures=2)
    assert deliver(publisher, [PACK]) == []
    assert publisher.sent == [PACK]
    assert publisher.attempts == 3


def test_a_pack_that_keeps_failing_becomes_replayable_log_lines_naming_it(caplog):
    publisher = FlakyPublisher(failures=99)
    carrying = ClickPack(
        "p1", (replace(CLICK, counts={"CacheHits": 1}),), (OrphanVisit("x", "unknown", "2026-01-01T00", 2),)
    )
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        assert deliver(publisher, [carrying]) == [carrying]
        assert log_lost([carrying]) == {"CacheHits": 1}
    lines = [json.loads(record.getMessage()) for record in caplog.records]
    # Without its counts: they are emitted at once, and a replay must not add them again.
    assert lines == [
        {"event": LOST_CLICK_EVENT, "pack": "p1", "click": json.loads(CLICK.to_json())},
        {
            "event": LOST_CLICK_EVENT,
            "pack": "p1",
            "orphan": {"code": "x", "outcome": "unknown", "hour": "2026-01-01T00", "count": 2},
        },
    ]


def emf_records(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]


def test_inline_dispatch_sends_at_the_end_of_the_invocation_and_the_click_carries_its_metrics(capsys):
    publisher = FlakyPublisher(failures=0)
    dispatcher = InlineDispatcher(providers(lambda: publisher))
    dispatcher.record_click("abc", click_request(), from_cache=True)
    assert publisher.sent == []
    dispatcher.invocation_done()
    [sent] = publisher.clicks()
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
    assert publisher.clicks() == [sent]
    assert emf_records(capsys.readouterr().out) == []


def test_each_clicks_cache_outcome_is_counted_after_the_response_with_the_counts_made_beside_it():
    publisher = FlakyPublisher(failures=0)
    dispatcher = InlineDispatcher(providers(lambda: publisher))
    dispatcher.record_click("abc", click_request(), from_cache=True)
    dispatcher.record_click("abc", click_request(), from_cache=True)
    dispatcher.record_click("def", click_request(), from_cache=False)
    dispatcher.record_click("ghi", click_request())  # no outcome: counted as neither
    dispatcher.count("CacheMisses")  # counted by name, as a caller without a click does
    assert dispatcher._pending.counts == {"CacheMisses": 1}  # nothing more before the response
    dispatcher.invocation_done()
    clicks = publisher.clicks()
    assert [click.code for click in clicks] == ["abc", "abc", "def", "ghi"]
    assert [click.counts for click in clicks] == [{"CacheHits": 2, "CacheMisses": 2}, {}, {}, {}]


def test_an_invocation_without_a_click_emits_its_own_metrics(capsys):
    dispatcher = InlineDispatcher(providers(lambda: FlakyPublisher(failures=0)))
    dispatcher.count("NotFound")
    dispatcher.invocation_done()
    [record] = emf_records(capsys.readouterr().out)
    assert record["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Shortlink"
    assert (record["NotFound"], record["service"]) == ([1.0], "redirect")


def test_the_redirects_metrics_carry_its_service_name_also_where_ingest_emits_them():
    assert RedirectMetricSettings.from_env({"POWERTOOLS_SERVICE_NAME": "redirect"}).service == "redirect"
    ingest = {"POWERTOOLS_SERVICE_NAME": "ingest", "REDIRECT_SERVICE_NAME": "redirect"}
    assert RedirectMetricSettings.from_env(ingest).service == "redirect"
    with pytest.raises(ConfigurationError, match="REDIRECT_SERVICE_NAME nor POWERTOOLS_SERVICE_NAME"):
        _ = RedirectMetricSettings.from_env({}).service


def test_a_lost_click_is_counted_as_a_dispatch_failure_and_its_metrics_are_emitted(capsys):
    dispatcher = InlineDispatcher(providers(lambda: FlakyPublisher(failures=99)))
    dispatcher.record_click("abc", click_request(), from_cache=False)
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
    from shortlink.redirect.click_events import primary_language, referrer_host

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


def test_a_click_counts_the_campaign_in_effect_on_its_destination():
    from shortlink.redirect.click_events import campaign_of

    # The first utm_campaign of the query is the one in effect: shortlink.links.destinations puts the
    # destination's own first, then the link's UTM field, then the visitor's forwarded one.
    assert campaign_of("https://shop.example/?utm_campaign=spring+sale&utm_campaign=visitor#top") == "spring sale"
    assert campaign_of("https://shop.example/a?utm_source=x") == "(none)"
    assert campaign_of("https://shop.example/#?utm_campaign=in-the-fragment") == "(none)"
    assert campaign_of("https://shop.example/?utm_campaign=&utm_campaign=later") == "(none)"
    assert campaign_of("https://shop.example/?utm_campaign=%0Ab%09" + "c" * 200) == "b" + "c" * 99
    publisher = FlakyPublisher(failures=0)
    dispatcher = InlineDispatcher(providers(lambda: publisher))
    dispatcher.record_click("abc", click_request(), "https://shop.example/?utm_campaign=spring")
    dispatcher.invocation_done()
    [sent] = publisher.clicks()
    assert ClickEvent.from_json(sent.to_json()).campaign == "spring"


class FakeExtensionsApi:
    """Lambda's Extensions API as the local stack emulates it: an invocation's INVOKE event is
    handed out once its response is out, and the next invocation waits until the extension asks
    for an event again."""

    def __init__(self) -> None:
        self.registrations = 0
        self._events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._asking = threading.Event()

    def register(self) -> None:
        self.registrations += 1

    def next_event(self) -> dict[str, Any]:
        self._asking.set()
        event = self._events.get()
        if event is None:
            raise OSError("the Extensions API went away")
        self._asking.clear()
        return event

    def invoke(self, dispatcher: ExtensionDispatcher, codes: list[str], delivered: bool = True) -> None:
        """One invocation following `codes`; `delivered=False`: its response failed to be
        written, and the extension never sees it."""
        assert self._asking.wait(5), "the extension is still busy with the previous invocation"
        for code in codes:
            dispatcher.record_click(code, click_request(), from_cache=True)
        dispatcher.invocation_done()
        if delivered:
            self._asking.clear()
            self._events.put({"eventType": "INVOKE", "deadlineMs": int((time.time() + 10) * 1000)})
            assert self._asking.wait(5), "the extension did not ask for the next event"

    def start_invocation(self, deadline_in: float) -> None:
        """An INVOKE as Lambda sends it, when the invocation starts, with its deadline."""
        assert self._asking.wait(5), "the extension is still busy with the previous invocation"
        self._asking.clear()
        self._events.put({"eventType": "INVOKE", "deadlineMs": int((time.time() + deadline_in) * 1000)})

    def wait_until_asking(self) -> bool:
        return self._asking.wait(5)

    def stop(self) -> None:
        self._events.put(None)


@pytest.fixture
def extension() -> Iterator[FakeExtensionsApi]:
    previous = signal.getsignal(signal.SIGTERM)
    api = FakeExtensionsApi()
    yield api
    api.stop()
    signal.signal(signal.SIGTERM, previous)  # the dispatcher's shutdown flush chains to it


def dispatcher_on(api: FakeExtensionsApi, publisher: FlakyPublisher, window: float) -> ExtensionDispatcher:
    return ExtensionDispatcher(
        providers(lambda: publisher),
        api,
        lambda: PackingRules(window_seconds=window, max_clicks=1000),
    )


def test_an_invocation_the_extension_never_saw_neither_repeats_nor_shifts_later_ones(extension):
    # Given an extension that sends every click at once
    publisher = FlakyPublisher(failures=0)
    dispatcher = dispatcher_on(extension, publisher, window=0)
    assert extension.registrations == 1
    # When one invocation's response fails to be written (the extension never sees it)
    extension.invoke(dispatcher, ["first"], delivered=False)
    assert publisher.sent == []
    # Then the next invocation sends both clicks, each once
    extension.invoke(dispatcher, ["second"])
    assert sorted(click.code for click in publisher.clicks()) == ["first", "second"]
    # And every later invocation sends its own click, when it ends: nothing runs behind
    for code in ("third", "fourth"):
        extension.invoke(dispatcher, [code])
        assert publisher.clicks()[-1].code == code
    codes = [click.code for click in publisher.clicks()]
    assert sorted(codes) == ["first", "fourth", "second", "third"]
    assert len({click.click_id for click in publisher.clicks()}) == 4


def test_a_click_id_is_fixed_when_recorded_so_a_second_send_repeats_the_same_pack(extension):
    # Given a send that times out after SQS took the message
    publisher = FlakyPublisher(failures=1, arrives_anyway=True)
    dispatcher = dispatcher_on(extension, publisher, window=0)
    extension.invoke(dispatcher, ["abc"])
    # Then the retry is the same pack: ingest counts it once
    first, second = publisher.sent
    assert first.to_json() == second.to_json()
    assert first.clicks[0].click_id == second.clicks[0].click_id


def test_a_busy_environment_packs_its_clicks_and_sends_them_at_shutdown(extension, capsys):
    publisher = FlakyPublisher(failures=0)
    dispatcher = dispatcher_on(extension, publisher, window=60)
    dispatcher.record_orphan("nope\x00" + "x" * 100, "unknown")  # counted with the next invocation
    # The first click of an idle environment goes at once
    extension.invoke(dispatcher, ["a0"])
    assert [click.code for click in publisher.clicks()] == ["a0"]
    # The next ones, less than a window later, are held: no message for them yet
    for n in range(1, 20):
        extension.invoke(dispatcher, [f"a{n}"])
    assert len(publisher.sent) == 1
    capsys.readouterr()
    # At shutdown (what SIGTERM runs) they go in one pack, with their metrics
    dispatcher.send_before(time.monotonic() + 5)
    assert len(publisher.sent) == 2
    held = publisher.sent[1]
    assert [click.code for click in held.clicks] == [f"a{n}" for n in range(1, 20)]
    assert all(click.counts == {"CacheHits": 1} for click in held.clicks)
    assert publisher.sent[0].orphans == (
        OrphanVisit("nope" + "x" * 60, "unknown", publisher.sent[0].orphans[0].hour, 1),
    )
    assert emf_records(capsys.readouterr().out) == []  # every count rode on a click


def test_an_environment_that_never_clicked_has_nothing_to_send_or_load_at_shutdown(extension, capsys):
    made: list[FlakyPublisher] = []

    def publisher() -> FlakyPublisher:
        made.append(FlakyPublisher(failures=0))
        return made[-1]

    dispatcher = ExtensionDispatcher(
        providers(publisher),
        extension,
        lambda: pytest.fail("rules read"),
    )
    dispatcher.send_before(time.monotonic() + 5)
    assert (made, dispatcher._held) == ([], None)  # no client, no held clicks made
    assert emf_records(capsys.readouterr().out) == []


def test_an_environment_holding_nothing_at_shutdown_makes_no_client_and_still_emits_its_counts(extension, capsys):
    made: list[FlakyPublisher] = []

    def publisher() -> FlakyPublisher:
        made.append(FlakyPublisher(failures=0))
        return made[-1]

    # Given an environment that answered, sent what it had when due, and now holds nothing
    dispatcher = ExtensionDispatcher(
        providers(publisher),
        extension,
        lambda: PackingRules(window_seconds=0, max_clicks=1000),
    )
    extension.invoke(dispatcher, ["a0"])
    assert len(made) == 1
    dispatcher.count("NotFound")  # an invocation whose work the extension has not taken yet
    dispatcher.invocation_done()
    capsys.readouterr()
    # When SIGTERM flushes: no second client, its counts emitted all the same
    dispatcher.send_before(time.monotonic() + 5)
    assert len(made) == 1
    [record] = emf_records(capsys.readouterr().out)
    assert record["NotFound"] == [1.0]


def test_held_clicks_not_queued_by_the_shutdown_deadline_are_logged_and_counted(extension, caplog, capsys):
    class StuckPublisher(FlakyPublisher):
        def publish(self, pack: ClickPack) -> None:
            time.sleep(2)  # longer than the grace period left

    publisher = StuckPublisher(failures=0)
    dispatcher = dispatcher_on(extension, publisher, window=0)
    dispatcher.record_click("held", click_request())
    dispatcher.invocation_done()  # never seen by the extension
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        dispatcher.send_before(time.monotonic() + 0.2)
    [line] = [json.loads(record.getMessage()) for record in caplog.records if record.levelno == logging.ERROR]
    assert (line["event"], line["click"]["code"]) == (LOST_CLICK_EVENT, "held")
    [record] = emf_records(capsys.readouterr().out)
    assert record["HeldClicksLost"] == [1.0]


def test_an_idle_environment_that_is_not_frozen_sends_held_clicks_when_due(extension):
    # Where the environment is not frozen between invocations (the local stack)
    publisher = FlakyPublisher(failures=0)
    dispatcher = dispatcher_on(extension, publisher, window=0.2)
    extension.invoke(dispatcher, ["first"])
    extension.invoke(dispatcher, ["held"])  # within the window: held
    deadline = time.monotonic() + 5
    while len(publisher.sent) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [[click.code for click in pack.clicks] for pack in publisher.sent] == [["first"], ["held"]]


def test_a_handler_about_to_time_out_has_the_held_clicks_sent_before_its_deadline(extension):
    publisher = FlakyPublisher(failures=0)
    dispatcher = dispatcher_on(extension, publisher, window=60)
    extension.invoke(dispatcher, ["sent"])
    extension.invoke(dispatcher, ["held"])
    assert len(publisher.sent) == 1
    # When an invocation starts whose handler never finishes before its deadline
    extension.start_invocation(deadline_in=click_extension.TIMEOUT_MARGIN_SECONDS + 0.3)
    # Then the held click is sent before the deadline ends the process, and the extension moves on
    assert extension.wait_until_asking()
    assert [[click.code for click in pack.clicks] for pack in publisher.sent] == [["sent"], ["held"]]


def test_a_lost_click_of_a_private_link_is_logged_without_its_code(caplog):
    from tools.operators.replay_clicks import lost_packs, unreplayable

    private = "Q2xpY2tzIG9mIHByaXZhdG"  # a private code's length: 22 characters
    pack = ClickPack(
        "p2",
        (replace(CLICK, code=private), CLICK),
        (OrphanVisit(private, "deleted", "2026-01-01T00", 1),),
    )
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        log_lost([pack])
    lines = [record.getMessage() for record in caplog.records if LOST_CLICK_EVENT in record.getMessage()]
    assert len(lines) == 3
    assert [line for line in lines if private in line] == []
    # The replay puts back what it can and says what it cannot
    assert lost_packs(lines) == [ClickPack("p2", (CLICK,))]
    assert unreplayable(lines) == 2
