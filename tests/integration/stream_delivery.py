"""The click-stats table's stream delivered to AccountStatsFunction as the local stack's poller
delivers it (tools.developers.devstack.stream_trigger), against moto's DynamoDB Streams."""

from collections.abc import Callable
from typing import Any

import boto3

from tools.developers.devstack.resources import stream_arns
from tools.developers.devstack.stream_trigger import StreamPoller
from tools.developers.devstack.template import LocalTemplate


class HandlerCaller:
    """Calls the tests' handlers by function name, keeping each event it was given."""

    def __init__(self, handlers: dict[str, Callable[..., Any]]) -> None:
        self._handlers = handlers
        self.events: list[dict[str, Any]] = []

    def call(self, function_name: str, event: dict[str, Any]) -> Any:
        self.events.append(event)
        return self._handlers[function_name](event, None)


class StreamDelivery:
    """One poller of the stream, from its oldest record on (a second one replays everything)."""

    def __init__(self, template: LocalTemplate, dynamodb: Any, handlers: dict[str, Callable[..., Any]]) -> None:
        trigger = template.stream_trigger("AccountStatsFunction")
        arn = stream_arns(template, dynamodb)[trigger.table_id]
        self.caller = HandlerCaller(handlers)
        self.poller = StreamPoller(trigger, arn, boto3.client("dynamodbstreams"), self.caller, "us-east-1")

    def drain(self, max_polls: int = 1_000) -> None:
        """Offer the stream's records until each was applied (a failed batch is offered again)."""
        for _ in range(max_polls):
            if not self.poller.poll_once():
                return
        raise AssertionError(f"stream records still failing after {max_polls} polls")
