"""SQS adapter: queues click packs for the ingest function, one message per pack."""

from typing import Any

from shortlink.clicks.events import ClickPack
from shortlink.errors import StorageUnavailable


class SqsQueue:
    """One queue, through a client that gives up fast (its callers answer someone, or retry
    through the queue)."""

    def __init__(self, queue_url: str) -> None:
        self._queue_url = queue_url
        self._client: Any = None

    def _sqs(self) -> Any:
        # Created on first send, not at import: only a redirect that found a link pays for it,
        # only a request that emits a webhook event.
        if self._client is None:
            import boto3
            from botocore.config import Config

            config = Config(connect_timeout=1, read_timeout=2, retries={"max_attempts": 2, "mode": "standard"})
            self._client = boto3.client("sqs", config=config)
        return self._client


class SqsClickPublisher(SqsQueue):
    def publish(self, pack: ClickPack) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._sqs().send_message(QueueUrl=self._queue_url, MessageBody=pack.to_json())
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"could not queue clicks: {error}") from error
