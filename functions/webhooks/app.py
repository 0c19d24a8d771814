"""The webhook queue → endpoints: events fanned out, deliveries signed and sent.

An event message (from create, manage and ingest) becomes one delivery message per endpoint that
wants it (shortlink.webhooks), queued again so that each endpoint is retried on its own. A
delivery is signed and posted (adapters/http/webhooks.py); when it fails, its message's
visibility puts its next attempt off by the retry schedule (5 s ... 8 h), and after the 8th
failure, about a day after the first, SQS dead-letters it, and the endpoint is disabled if it
answered none of its last 8 attempts. Records are handled in parallel threads: one slow
receiver does not hold up the others of its batch.
"""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.errors import StorageUnavailable
from shortlink.webhooks.deliveries import (
    Delivery,
    click_deliveries,
    disables_endpoint,
    link_deliveries,
    parse_message,
    retry_delay,
    signature_headers,
)
from shortlink.webhooks.endpoints import EndpointNotFound
from shortlink.webhooks.events import CLICK_EVENT, EventMessage
from shortlink.wiring import link_owners, required_webhook_queue, short_domains, webhook_endpoints, webhook_sender

logger = Logger()
metrics = Metrics()
MAX_PARALLEL_SENDS = 10


def fan_out(event: EventMessage) -> list[Delivery]:
    store = webhook_endpoints()
    if event.event_type != CLICK_EVENT:
        return link_deliveries(event, store.list_for_owner(event.owner))
    links = link_owners().of(sorted(event.clicks))
    endpoints = {owner: store.list_for_owner(owner) for owner in sorted({link.owner for link in links.values()})}
    return click_deliveries(event, links, endpoints, short_domains())


def deliver(delivery: Delivery, record: dict[str, Any], outcomes: Counter[str]) -> bool:
    """Send one delivery; whether its message is done with (sent, or its endpoint gone)."""
    store = webhook_endpoints()
    endpoint = store.get(delivery.owner, delivery.endpoint_id)
    if endpoint is None or endpoint.disabled_at is not None:
        outcomes["dropped"] += 1
        return True
    at = datetime.now(UTC)
    headers = signature_headers(endpoint.signing_secrets(at), delivery.webhook_id, at, delivery.payload)
    result = webhook_sender().send(endpoint.url, headers, delivery.payload)
    attempt = int(record.get("attributes", {}).get("ApproximateReceiveCount", "1"))
    log = {"endpoint": endpoint.endpoint_id, "webhook_id": delivery.webhook_id, "attempt": attempt}
    if result.ok:
        outcomes["sent"] += 1
        if endpoint.consecutive_failures:
            store.record_success(endpoint.owner, endpoint.endpoint_id)
        return True
    outcomes["failed"] += 1
    failures = store.record_failure(endpoint.owner, endpoint.endpoint_id)
    logger.warning("webhook delivery failed", extra={**log, "reason": result.reason, "failures": failures})
    delay = retry_delay(attempt)
    if delay is not None:
        required_webhook_queue().retry_after(record["receiptHandle"], delay)
    elif disables_endpoint(attempt, failures):
        store.disable(endpoint.owner, endpoint.endpoint_id, datetime.now(UTC))
        outcomes["disabled"] += 1
        logger.warning("webhook endpoint disabled", extra=log)
    return False


def handle(record: dict[str, Any], outcomes: Counter[str]) -> bool:
    try:
        message = parse_message(record["body"])
    except (ValueError, KeyError, TypeError):
        logger.exception("malformed webhook message", extra={"message_id": record.get("messageId")})
        return False
    try:
        if isinstance(message, Delivery):
            return deliver(message, record, outcomes)
        deliveries = fan_out(message)
        if deliveries:
            required_webhook_queue().send(deliveries)
        outcomes["fanned_out"] += len(deliveries)
        return True
    except EndpointNotFound:  # removed while its delivery was on the way
        outcomes["dropped"] += 1
        return True
    except StorageUnavailable:
        logger.exception("webhook message not handled", extra={"message_id": record.get("messageId")})
        return False


def handle_alone(record: dict[str, Any]) -> tuple[bool, Counter[str]]:
    outcomes: Counter[str] = Counter()  # one per thread, added up after
    return handle(record, outcomes), outcomes


def handle_batch(records: list[dict[str, Any]]) -> dict[str, Any]:
    with ThreadPoolExecutor(max_workers=MAX_PARALLEL_SENDS) as pool:
        results = list(pool.map(handle_alone, records))
    done = [ok for ok, _ in results]
    outcomes = sum((counts for _, counts in results), Counter[str]())
    metrics.add_metric(name="WebhookDeliveries", unit=MetricUnit.Count, value=outcomes["sent"])
    metrics.add_metric(name="WebhookDeliveryFailures", unit=MetricUnit.Count, value=outcomes["failed"])
    metrics.add_metric(name="WebhookEndpointsDisabled", unit=MetricUnit.Count, value=outcomes["disabled"])
    logger.info("webhook batch handled", extra={"records": len(records), **outcomes})
    failures = [{"itemIdentifier": record["messageId"]} for record, ok in zip(records, done, strict=True) if not ok]
    return {"batchItemFailures": failures}


@metrics.log_metrics
@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_batch(event["Records"])
