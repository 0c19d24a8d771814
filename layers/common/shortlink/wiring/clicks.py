"""Clicks: how the redirect reads, packs and queues them after the response, and ingest's and
the stats' tables."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shortlink.settings.clicks import ClickSettings
from shortlink.settings.ip_databases import IpDatabaseSettings
from shortlink.settings.scanners import ScannerSettings
from shortlink.wiring.environment import lambda_runtime, redirect_metric_settings, resources, settings_of
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.athena.click_exports import AthenaLakeExports
    from shortlink.adapters.athena.click_lake_queries import AthenaLakeLinkDays
    from shortlink.adapters.dynamodb.account_changes import AccountChanges
    from shortlink.adapters.dynamodb.account_days import DynamoAccountDays
    from shortlink.adapters.dynamodb.click_counter import DynamoClickCounter
    from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader
    from shortlink.adapters.dynamodb.counted_link_days import DynamoCountedLinkDays
    from shortlink.adapters.firehose.click_lake import FirehoseClickLake
    from shortlink.adapters.sqs.clicks import SqsClickPublisher
    from shortlink.clicks.ip_databases import Database, DatabaseSource
    from shortlink.clicks.packing import PackingRules
    from shortlink.clicks.scanner_signals import ScannerSignals
    from shortlink.redirect.click_dispatch import ClickDispatcher
    from shortlink.redirect.click_events import ClickReading


@factory
def click_reading() -> "ClickReading":
    """What the redirect's clicks are read with after the response (shortlink.redirect.click_events)."""
    from shortlink.clicks.country_database import CountryDatabase
    from shortlink.clicks.repeats import RecentFollows
    from shortlink.redirect.click_events import ClickReading

    follows = RecentFollows(settings_of(ClickSettings).repeat_window_seconds)
    databases = settings_of(IpDatabaseSettings)
    countries = ip_database(databases.country_database, databases.country_key, CountryDatabase)
    return ClickReading(follows, countries, scanner_signals())


def scanner_signals() -> "ScannerSignals":
    """The networks and timing that make a person's User-Agent a scanner's (shortlink.settings.scanners)."""
    from shortlink.clicks.link_bursts import LinkBursts
    from shortlink.clicks.network_database import NetworkDatabase
    from shortlink.clicks.scanner_signals import ScannerNetworks, ScannerSignals

    scanners, databases = settings_of(ScannerSettings), settings_of(IpDatabaseSettings)
    networks = ScannerNetworks(scanners.asns, scanners.network_names) if scanners.networks == "on" else None
    if networks is None:  # not read at all
        database = ip_database("", "", NetworkDatabase)
    else:
        database = ip_database(databases.network_database, databases.network_key, NetworkDatabase)
    bursts = LinkBursts(scanners.burst_window_ms / 1000, scanners.burst_links) if scanners.burst_links else None
    return ScannerSignals(networks, database, bursts)


def ip_database(path: str, key: str, kind: "Callable[[str], Database]") -> "DatabaseSource[Database]":
    """An IP database: the object `key` of the operator's bucket where both are set, else the
    function's file at `path` (empty: none)."""
    from shortlink.clicks.ip_databases import open_database

    databases = settings_of(IpDatabaseSettings)
    if databases.bucket and key:
        from shortlink.adapters.s3.ip_database_objects import S3Database

        return S3Database(databases.bucket, key, kind, databases.check_minutes * 60)
    return open_database(path, kind)


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
def click_lake() -> "FirehoseClickLake | None":
    """The click lake's delivery stream ingest sends its counted clicks to; None when the stack has no lake."""
    from shortlink.adapters.firehose.click_lake import FirehoseClickLake

    stream = resources().click_lake_stream
    return FirehoseClickLake(stream.value) if stream.given else None


@factory
def lake_link_days() -> "AthenaLakeLinkDays":
    """The click lake's clicks per link and day, queried with Athena (the daily reconciliation)."""
    from shortlink.adapters.athena.click_lake_queries import AthenaLakeLinkDays

    return AthenaLakeLinkDays(resources().click_lake_workgroup.value, resources().click_lake_database.value)


@factory
def lake_exports() -> "AthenaLakeExports | None":
    """The click lake's raw exports, run by Athena in the lake's workgroup; None when the stack has no lake."""
    from shortlink.adapters.athena.click_exports import AthenaLakeExports

    found = resources()
    if not found.click_lake_bucket.given:
        return None
    return AthenaLakeExports(
        found.click_lake_workgroup.value, found.click_lake_database.value, found.click_lake_bucket.value
    )


@factory
def counted_link_days() -> "DynamoCountedLinkDays":
    """The counters' clicks per link key and day (the daily reconciliation)."""
    from shortlink.adapters.dynamodb.counted_link_days import DynamoCountedLinkDays

    return DynamoCountedLinkDays(resources().click_stats_table.value)


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
