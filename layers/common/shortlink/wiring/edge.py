"""The edge tier's sync (functions/edge_sync): the store it writes, the links it reads; and the
counts its check reads (functions/edge_counts)."""

from typing import TYPE_CHECKING, Any

from shortlink.wiring.clicks import click_stats
from shortlink.wiring.environment import resources, settings_of
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from datetime import date

    from shortlink.adapters.cloudfront.key_value_store import KeyValueStore
    from shortlink.adapters.cloudwatch.edge_counts import CloudWatchEdgeCounts
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


@factory
def edge_counts() -> "CloudWatchEdgeCounts":
    """CloudFront's count of the edge function's invocations (us-east-1) and ingest's of the log
    lines it read (this region), under the stack's metrics namespace."""
    from shortlink.adapters.botocore_clients import botocore_client
    from shortlink.adapters.cloudwatch.edge_counts import CLOUDFRONT_METRICS_REGION, CloudWatchEdgeCounts
    from shortlink.settings.metrics import RedirectMetricSettings

    return CloudWatchEdgeCounts(
        botocore_client("cloudwatch", region_name=CLOUDFRONT_METRICS_REGION),
        botocore_client("cloudwatch"),
        resources().edge_function.value,
        settings_of(RedirectMetricSettings).namespace,
    )
