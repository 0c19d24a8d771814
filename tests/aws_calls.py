"""Counts the AWS API calls made through botocore (boto3 and pynamodb alike)."""

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

    def counts(self) -> Counter[tuple[str, str]]:
        return Counter(self.calls)

    def clear(self) -> None:
        self.calls.clear()


@contextmanager
def recording_aws_calls() -> Iterator[CallRecorder]:
    recorder = CallRecorder()

    def record(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        recorder.calls.append((client.meta.service_model.service_name, operation))
        return _original(client, operation, params)

    with mock.patch.object(BaseClient, "_make_api_call", autospec=True, side_effect=record):
        yield recorder
