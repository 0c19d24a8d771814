"""Counts the AWS API calls made through botocore (boto3 and pynamodb alike)."""

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from botocore.client import BaseClient

_original = BaseClient._make_api_call  # type: ignore[attr-defined]


class CallRecorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.threads: list[str] = []  # the thread that made each call

    def counts(self) -> Counter[tuple[str, str]]:
        return Counter(self.calls)

    def made_on(self, thread: threading.Thread) -> int:
        return self.threads.count(thread.name)

    def clear(self) -> None:
        self.calls.clear()
        self.threads.clear()


@contextmanager
def recording_aws_calls() -> Iterator[CallRecorder]:
    recorder = CallRecorder()

    def record(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        recorder.calls.append((client.meta.service_model.service_name, operation))
        recorder.threads.append(threading.current_thread().name)
        return _original(client, operation, params)

    with mock.patch.object(BaseClient, "_make_api_call", autospec=True, side_effect=record):
        yield recorder
