"""The template's SQS event sources, as Lambda's poller runs them: receive a batch, invoke
the function with a real SQS event, delete what succeeded, leave `batchItemFailures` (or the
whole batch, when the function raises) to come back after the visibility timeout."""

import logging
import os
import random
import time
from typing import Any, Protocol

from tools.developers.devstack.polling import Poller
from tools.developers.devstack.template import SqsTrigger

logger = logging.getLogger("devstack")

SQS_RECEIVE_LIMIT = 10  # SQS hands out at most 10 messages per ReceiveMessage call
REDELIVERY_VARIABLE = "SHORTLINK_REDELIVERY"


def redelivery_chance() -> float:
    """SHORTLINK_REDELIVERY: the chance (0 to 1) that a message the function handled comes back
    all the same, as SQS's at-least-once delivery may have it; 0 unless set (tests set it)."""
    text = os.environ.get(REDELIVERY_VARIABLE) or "0"
    try:
        chance = float(text)
    except ValueError:
        chance = -1.0
    if not 0 <= chance <= 1:
        raise SystemExit(f"{REDELIVERY_VARIABLE} must be a number from 0 to 1, not {text!r}")
    return chance


class FunctionCaller(Protocol):
    """What runs the function: the in-process runner here, `sam local start-lambda` in tools.developers.samlocal."""

    def call(self, function_name: str, event: dict[str, Any]) -> Any: ...


def sqs_event(messages: list[dict[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message.get("Attributes", {}),
                "messageAttributes": message.get("MessageAttributes", {}),
                "md5OfBody": message["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
            for message in messages
        ]
    }


class SqsPoller(Poller):
    def __init__(
        self,
        trigger: SqsTrigger,
        queue_url: str,
        sqs: Any,
        runner: FunctionCaller,
        region: str,
        interval: float = 1.0,
        redelivery: float = 0.0,
    ) -> None:
        super().__init__(f"sqs-{trigger.function_name}", trigger.queue_id, interval)
        self._trigger = trigger
        self._queue_url = queue_url
        self._sqs = sqs
        self._runner = runner
        self.last_invocation_seconds = 0.0
        self._region = region
        self._redelivery = redelivery
        self._queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]

    def receive_batch(self) -> list[dict[str, Any]]:
        batch: list[dict[str, Any]] = []
        while len(batch) < self._trigger.batch_size:
            answer = self._sqs.receive_message(
                QueueUrl=self._queue_url,
                MaxNumberOfMessages=min(SQS_RECEIVE_LIMIT, self._trigger.batch_size - len(batch)),
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            messages = answer.get("Messages", [])
            if not messages:
                break
            batch.extend(messages)
        return batch

    def poll_once(self) -> int:
        """Deliver one batch; the number of messages delivered."""
        batch = self.receive_batch()
        if not batch:
            return 0
        started = time.perf_counter()
        try:
            result = self._runner.call(self._trigger.function_name, sqs_event(batch, self._queue_arn, self._region))
        except Exception:
            logger.exception("%s failed; %d messages will be retried", self._trigger.function_name, len(batch))
            return len(batch)
        finally:
            self.last_invocation_seconds = time.perf_counter() - started  # the handler alone (make bench)
        failed = set()
        if self._trigger.reports_item_failures and isinstance(result, dict):
            failed = {item["itemIdentifier"] for item in result.get("batchItemFailures", [])}
        done = [message for message in batch if message["MessageId"] not in failed]
        if self._redelivery:
            again = [message for message in done if random.random() < self._redelivery]  # noqa: S311 (not a secret)
            done = [message for message in done if message not in again]
            self.offer_again(again)
        for start in range(0, len(done), SQS_RECEIVE_LIMIT):
            entries = [
                {"Id": str(i), "ReceiptHandle": message["ReceiptHandle"]}
                for i, message in enumerate(done[start : start + SQS_RECEIVE_LIMIT])
            ]
            self._sqs.delete_message_batch(QueueUrl=self._queue_url, Entries=entries)
        logger.info(
            "%s <- %s: %d delivered, %d failed",
            self._trigger.function_name,
            self._trigger.queue_id,
            len(batch),
            len(failed),
        )
        return len(batch)

    def offer_again(self, messages: list[dict[str, Any]]) -> None:
        """Leave handled messages on the queue, visible at once: SQS delivers them again."""
        for start in range(0, len(messages), SQS_RECEIVE_LIMIT):
            entries = [
                {"Id": str(i), "ReceiptHandle": message["ReceiptHandle"], "VisibilityTimeout": 0}
                for i, message in enumerate(messages[start : start + SQS_RECEIVE_LIMIT])
            ]
            self._sqs.change_message_visibility_batch(QueueUrl=self._queue_url, Entries=entries)
        if messages:
            trigger = self._trigger
            logger.info("%s <- %s: %d offered again", trigger.function_name, trigger.queue_id, len(messages))
