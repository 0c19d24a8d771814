"""The template's event sources as both local stacks run them (make dev, make sam-local): a
poller per SQS trigger (ingest's clicks, the webhooks' deliveries) and per DynamoDB stream
trigger (the account stats' aggregator), each handing its batches to its function's caller."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.developers.devstack.resources import stream_arns
from tools.developers.devstack.sqs_trigger import FunctionCaller, SqsPoller
from tools.developers.devstack.stream_trigger import StreamPoller
from tools.developers.devstack.template import LocalTemplate


@dataclass
class EventSources:
    pollers: list[SqsPoller | StreamPoller]
    without_streams: list[str]  # tables whose store has no stream (dynalite): their triggers do not run


def event_sources(
    template: LocalTemplate,
    queue_urls: dict[str, str],
    clients: tuple[Any, Any, Any],
    caller_of: Callable[[str], FunctionCaller],
    region: str,
    redelivery: float = 0.0,
    functions_off: frozenset[str] = frozenset(),
) -> EventSources:
    """Pollers of every trigger (not started) but those of `functions_off` (a part the stack
    runs without, such as the edge tier's sync); `clients` are SQS, DynamoDB and DynamoDB Streams;
    `redelivery`: the chance that an SQS message handled comes back (tools.developers.devstack.sqs_trigger)."""
    sqs, dynamodb, streams_client = clients
    pollers: list[SqsPoller | StreamPoller] = [
        SqsPoller(
            trigger, queue_urls[trigger.queue_id], sqs, caller_of(trigger.function_name), region, redelivery=redelivery
        )
        for trigger in template.sqs_triggers()
    ]
    streams = stream_arns(template, dynamodb)
    for trigger in template.stream_triggers():
        if trigger.table_id in streams and trigger.function_name not in functions_off:
            caller = caller_of(trigger.function_name)
            pollers.append(StreamPoller(trigger, streams[trigger.table_id], streams_client, caller, region))
    without_streams = sorted({trigger.table_id for trigger in template.stream_triggers()} - set(streams))
    return EventSources(pollers, without_streams)
