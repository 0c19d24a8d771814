"""The edge tier's sync (functions/edge_sync): the store it writes, the links it reads."""

from typing import TYPE_CHECKING, Any

from shortlink.wiring.clicks import click_stats
from shortlink.wiring.environment import resources
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from datetime import date

    from shortlink.adapters.cloudfront.key_value_store import KeyValueStore
    from shortlink.adapters.dynamodb.link_feed import DynamoLinkScan
    from shortlink.adapters.dynamodb.recent_clicks import RecentLinkClicks
    from shortlink.links.model import Link


@factory
def edge_store() -> "KeyValueStore":
    """The edge's KeyValueStore (its endpoint from botocore's settings: the local store's in the
    local stack)."""
    from shortlink.adapters.botocore_clients import botocore_client
    from shortlink.adapters.cloudfront.key_value_store import KeyValueStore

    return KeyValueStore(botocore_client("cloudfront-keyvaluestore"), resources().edge_store.value)


@factory
def link_scan() -> "DynamoLinkScan":
    from shortlink.adapters.dynamodb.link_feed import DynamoLinkScan

    return DynamoLinkScan(resources().links_table.value)


def link_stream_changes(records: list[dict[str, Any]]) -> "list[tuple[Link | None, Link | None]]":
    """The (old, new) links of the links table's stream records."""
    from shortlink.adapters.dynamodb.link_feed import stream_changes

    return stream_changes(records)


def recent_link_clicks(today: "date") -> "RecentLinkClicks":
    """Links' clicks of the days up to `today`: how hot each is for the store's capacity rule."""
    from shortlink.adapters.dynamodb.recent_clicks import RecentLinkClicks

    return RecentLinkClicks(click_stats(), today)
