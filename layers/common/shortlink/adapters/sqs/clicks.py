"""SQS adapter: queues click packs for the ingest function, one message per pack."""

from typing import Any

from shortlink.clicks.events import ClickPack
from shortlink.errors import StorageUnavailable

# Sooner than the stack's other clients: the callers answer someone, or retry through the queue.
CONNECT_TIMEOUT_SECONDS = 1
READ_TIMEOUT_SECONDS = 2
MAX_ATTEMPTS = 2


class SqsQueue:
    """One queue, through a client that gives up fast."""

    def __init__(self, queue_url: str) -> None:
        self._queue_url = queue_url
        self._client: Any = None

    def _sqs(self) -> Any:
        # Created on first send, not at import: only a redirect that found a link pays for it,
        # only a request that emits a webhook event. Plain botocore: importing boto3 for it
        # doubled the client's cost, paid before the redirect's environment takes its next request.
        if self._client is None:
            from shortlink.adapters.botocore_clients import botocore_client

            self._client = botocore_client(
                "sqs", READ_TIMEOUT_SECONDS, connect_timeout_seconds=CONNECT_TIMEOUT_SECONDS, max_attempts=MAX_ATTEMPTS
            )
        return self._client


class SqsClickPublisher(SqsQueue):
    def publish(self, pack: ClickPack) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._sqs().send_message(QueueUrl=self._queue_url, MessageBody=pack.to_json())
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"could not queue clicks: {error}") from error
