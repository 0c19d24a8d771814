"""The tables and queues a function is told, each by its variable (template.yaml gives each
function only those its policy lets it use)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, Resource, resource


@dataclass(frozen=True)
class Resources(EnvironmentModel):
    links_table: Resource = resource("LINKS_TABLE")
    api_keys_table: Resource = resource("API_KEYS_TABLE")
    counters_table: Resource = resource("COUNTERS_TABLE")
    click_stats_table: Resource = resource("CLICK_STATS_TABLE")
    clicks_queue: Resource = resource("CLICKS_QUEUE_URL")
    # Powertools Idempotency records of creates with an Idempotency-Key (create function only).
    idempotency_table: Resource = resource("IDEMPOTENCY_TABLE")
    # Webhook endpoints and the queue their events and deliveries go through (shortlink.webhooks);
    # without a queue no event is emitted.
    webhooks_table: Resource = resource("WEBHOOKS_TABLE")
    webhook_queue: Resource = resource("WEBHOOK_QUEUE_URL")
    # The click lake's Firehose delivery stream (docs/click-lake.md); without it no row is sent.
    click_lake_stream: Resource = resource("CLICK_LAKE_STREAM")
    # The lake's Athena workgroup and Glue database: the daily reconciliation's query.
    click_lake_workgroup: Resource = resource("CLICK_LAKE_WORKGROUP")
    click_lake_database: Resource = resource("CLICK_LAKE_DATABASE")
    # The lake's bucket: where raw exports are written and fetched from (without it, no export).
    click_lake_bucket: Resource = resource("CLICK_LAKE_BUCKET")
    # The edge's KeyValueStore (shortlink.edge.sync), in the stack that has the distribution.
    edge_store: Resource = resource("EDGE_STORE_ARN")
    # The edge's viewer-request function, whose invocations its counts are checked against
    # (shortlink.edge.count_check).
    edge_function: Resource = resource("EDGE_FUNCTION_NAME")
