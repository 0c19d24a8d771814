"""The redirect's services over in-memory links, for unit tests of its door and its request."""

from typing import Any

import pytest

from shortlink.clicks.events import ClickPack
from shortlink.clicks.ip_databases import FixedDatabase
from shortlink.clicks.repeats import RecentFollows
from shortlink.clicks.scanner_signals import ScannerSignals
from shortlink.domains.settings import DomainSettings
from shortlink.links.ports import LinkSource
from shortlink.redirect.cache import CachedLinks
from shortlink.redirect.click_dispatch import ClickProviders, InlineDispatcher
from shortlink.redirect.click_events import ClickReading
from shortlink.redirect.request import RequestReading
from shortlink.redirect.responses import plain_redirect
from shortlink.redirect.services import RedirectServices
from shortlink.settings.metrics import RedirectMetricSettings


class Publisher:
    """The clicks queue: the packs it was sent."""

    def __init__(self) -> None:
        self.packs: list[ClickPack] = []

    def publish(self, pack: ClickPack) -> None:
        self.packs.append(pack)


def plain_click_reading() -> ClickReading:
    """Clicks read without IP databases or scanner signals, repeats within 10 seconds."""
    return ClickReading(RecentFollows(10), FixedDatabase(None), ScannerSignals(None, FixedDatabase(None), None))


def redirect_of(
    source: LinkSource, reading: RequestReading, domain_settings: dict[str, DomainSettings] | None = None
) -> tuple[RedirectServices, InlineDispatcher, Publisher]:
    """The redirect's services over `source`, its clicks sent inline to the returned publisher;
    any domain settings read fail the test unless given."""
    publisher = Publisher()
    links = CachedLinks(source, 10, 30, 5, prepare=plain_redirect)
    clicks = plain_click_reading()
    metrics = RedirectMetricSettings(own_service="redirect")
    dispatcher = InlineDispatcher(
        ClickProviders(lambda: publisher, lambda: b"unit-test-salt-root", lambda: clicks, lambda: metrics)
    )

    def unused() -> Any:
        pytest.fail("these links read no budget, attempt log or robots.txt")

    def settings() -> dict[str, DomainSettings]:
        if domain_settings is None:
            pytest.fail("these links read no domain settings")
        return domain_settings

    services = RedirectServices(
        links=links,
        dispatcher=dispatcher,
        reading=reading,
        unlock_attempts_per_window=10,
        click_budget=unused,
        attempt_log=unused,
        domain_settings=settings,
        robots=unused,
    )
    return services, dispatcher, publisher
