"""Webhooks: the endpoints, the queue of events, the owners of the links events name, and the
sender that delivers them."""

from typing import TYPE_CHECKING

from shortlink.errors import ConfigurationError
from shortlink.settings.webhooks import WebhookSettings
from shortlink.wiring.environment import regions, resources, settings_of
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.webhooks import DynamoEndpointStore, DynamoLinkOwners
    from shortlink.adapters.http.webhooks import HttpWebhookSender
    from shortlink.adapters.sqs.webhooks import SqsWebhookQueue


@factory
def webhook_endpoints() -> "DynamoEndpointStore":
    """Accounts' webhook endpoints, in the home region's table."""
    from shortlink.adapters.dynamodb.webhooks import DynamoEndpointStore

    return DynamoEndpointStore(resources().webhooks_table.value, regions().home_region_name)


@factory
def webhook_queue() -> "SqsWebhookQueue | None":
    """The webhook queue, or None where none is configured (no event is then emitted)."""
    from shortlink.adapters.sqs.webhooks import SqsWebhookQueue

    queue = resources().webhook_queue
    return SqsWebhookQueue(queue.value) if queue.given else None


def required_webhook_queue() -> "SqsWebhookQueue":
    """The webhook queue of the function that delivers from it: ConfigurationError without one."""
    queue = webhook_queue()
    if queue is None:
        raise ConfigurationError("WEBHOOK_QUEUE_URL is not set")
    return queue


@factory
def link_owners() -> "DynamoLinkOwners":
    """The owners and tags of the links an event names."""
    from shortlink.adapters.dynamodb.webhooks import DynamoLinkOwners

    return DynamoLinkOwners(resources().links_table.value)


@factory
def webhook_sender() -> "HttpWebhookSender":
    """Delivers events over HTTP (loopback addresses refused unless allowed, as in `make dev`)."""
    from shortlink.adapters.http.webhooks import HttpWebhookSender

    return HttpWebhookSender(allow_loopback=settings_of(WebhookSettings).allow_loopback)
