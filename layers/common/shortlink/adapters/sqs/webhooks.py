"""SQS adapter for the webhook queue: events in (one call for up to ten), deliveries out after
fan-out, and a failed delivery's next attempt put off (its message's visibility)."""

from collections.abc import Sequence

from shortlink.adapters.sqs.clicks import SqsQueue
from shortlink.errors import StorageUnavailable
from shortlink.webhooks.deliveries import Delivery
from shortlink.webhooks.events import EventMessage

SQS_BATCH_LIMIT = 10  # SendMessageBatch entries per call


class SqsWebhookQueue(SqsQueue):
    def send(self, messages: Sequence[EventMessage | Delivery]) -> None:
        """Queue the messages: one SendMessage for one, one SendMessageBatch per ten otherwise."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            if len(messages) == 1:
                self._sqs().send_message(QueueUrl=self._queue_url, MessageBody=messages[0].to_json())
                return
            for start in range(0, len(messages), SQS_BATCH_LIMIT):
                chunk = messages[start : start + SQS_BATCH_LIMIT]
                entries = [{"Id": str(i), "MessageBody": message.to_json()} for i, message in enumerate(chunk)]
                answer = self._sqs().send_message_batch(QueueUrl=self._queue_url, Entries=entries)
                if answer.get("Failed"):
                    raise StorageUnavailable(f"{len(answer['Failed'])} webhook messages not queued")
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"could not queue webhook messages: {error}") from error

    def retry_after(self, receipt_handle: str, seconds: int) -> None:
        """The message comes back in `seconds` (its visibility timeout, from now)."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._sqs().change_message_visibility(
                QueueUrl=self._queue_url, ReceiptHandle=receipt_handle, VisibilityTimeout=seconds
            )
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"could not put off a webhook delivery: {error}") from error
