"""Invokes a function through `sam local start-lambda`, which speaks Lambda's Invoke API: the
SQS trigger of the local stack delivers click batches to ingest this way."""

import json
from typing import Any

import boto3
from botocore.config import Config


class FunctionError(RuntimeError):
    """The function raised (Lambda's X-Amz-Function-Error): the poller leaves the batch to be retried."""


class StartLambdaCaller:
    def __init__(self, endpoint: str, timeout_seconds: int) -> None:
        # One try per batch: a retry would deliver it twice while the first still runs.
        config = Config(read_timeout=timeout_seconds, retries={"max_attempts": 0, "mode": "standard"})
        self._client: Any = boto3.client("lambda", endpoint_url=endpoint, config=config)

    def call(self, function_name: str, event: dict[str, Any]) -> Any:
        answer = self._client.invoke(FunctionName=function_name, Payload=json.dumps(event).encode())
        payload = answer["Payload"].read()
        if answer.get("FunctionError"):
            raise FunctionError(f"{function_name}: {payload.decode(errors='replace')[:500]}")
        return json.loads(payload) if payload else None
