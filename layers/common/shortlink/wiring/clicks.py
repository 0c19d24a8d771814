"""Clicks: how the redirect reads, packs and queues them after the response, and ingest's and
the stats' tables."""

from typing import TYPE_CHECKING, Any

from shortlink.settings.clicks import ClickSettings
from shortlink.wiring.environment import lambda_runtime, redirect_metric_settings, resources, settings_of
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.account_changes import AccountChanges
    from shortlink.adapters.dynamodb.account_days import DynamoAccountDays
    from shortlink.adapters.dynamodb.click_counter import DynamoClickCounter
    from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader
    from shortlink.adapters.sqs.clicks import SqsClickPublisher
    from shortlink.clicks.packing import PackingRules
    from shortlink.redirect.click_dispatch import ClickDispatcher
    from shortlink.redirect.click_events import ClickReading


@factory
def click_reading() -> "ClickReading":
    """What the redirect's clicks are read with after the response (shortlink.redirect.click_events)."""
    from shortlink.clicks.repeats import RecentFollows
    from shortlink.redirect.click_events import ClickReading, open_country_database

    clicks = settings_of(ClickSettings)
    follows = RecentFollows(clicks.repeat_window_seconds)
    return ClickReading(follows, open_country_database(clicks.country_database))


@factory
def packing_rules() -> "PackingRules":
    """How long and how many of its clicks the redirect holds before it sends them in one pack."""
    from shortlink.clicks.packing import PackingRules

    clicks = settings_of(ClickSettings)
    return PackingRules(clicks.pack_window_ms / 1000, clicks.pack_max_clicks)


@factory
def click_publisher() -> "SqsClickPublisher":
    """The clicks queue the redirect sends its packs to."""
    from shortlink.adapters.sqs.clicks import SqsClickPublisher

    return SqsClickPublisher(resources().clicks_queue.value)


@factory
def visitor_salt_root() -> bytes:
    """The secret root of the daily visitor-hash salt (read after a response, then kept)."""
    from shortlink.clicks.visitor_hashes import load_salt_root

    clicks = settings_of(ClickSettings)
    return load_salt_root(clicks.visitor_salt, clicks.visitor_salt_parameter)


def click_dispatcher() -> "ClickDispatcher":
    """The redirect's click dispatcher, with this module's providers: the redirect makes it once,
    at init (Lambda takes an extension's registration only then), and keeps it; not cached here,
    so reset() never forgets the one registered."""
    from shortlink.redirect.click_dispatch import ClickProviders
    from shortlink.redirect.click_extension import click_dispatcher as dispatcher_for

    providers = ClickProviders(click_publisher, visitor_salt_root, click_reading, redirect_metric_settings)
    return dispatcher_for(providers, packing_rules, lambda_runtime().extensions_api)


@factory
def click_counter() -> "DynamoClickCounter":
    """Ingest's exactly-once writes of click counters."""
    from shortlink.adapters.dynamodb.click_counter import DynamoClickCounter

    return DynamoClickCounter(resources().click_stats_table.value)


@factory
def click_stats() -> "DynamoClickStatsReader":
    """The stats reads (the API's, the console's, the exports' and the account days')."""
    from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader

    return DynamoClickStatsReader(resources().click_stats_table.value)


@factory
def account_days() -> "DynamoAccountDays":
    """The accounts' clicks by day, read and written through the stats reader's client."""
    from shortlink.adapters.dynamodb.account_days import DynamoAccountDays

    return DynamoAccountDays(click_stats())  # one client for both


def account_changes(records: list[dict[str, Any]]) -> "AccountChanges":
    """A batch of the click-stats stream's records as changes of account days (this region's)."""
    from shortlink.adapters.dynamodb.account_changes import account_changes as changes_of

    return changes_of(records, account_days().region())
