"""The one configuration of the stack's AWS clients, plain botocore ones and pynamodb's alike:
Lambda functions answer someone, so they fail fast rather than hang on a stuck connection (the
SQS queues, sooner still, pass their own limits)."""

from functools import cache
from typing import Any

from botocore.config import Config
from botocore.session import get_session

CONNECT_TIMEOUT_SECONDS = 2
READ_TIMEOUT_SECONDS = 5
MAX_ATTEMPTS = 3


@cache
def _config(connect_timeout_seconds: float, read_timeout_seconds: float, max_attempts: int) -> Config:
    return Config(
        connect_timeout=connect_timeout_seconds,
        read_timeout=read_timeout_seconds,
        retries={"max_attempts": max_attempts, "mode": "standard"},
    )


def botocore_client(
    service: str,
    read_timeout_seconds: float = READ_TIMEOUT_SECONDS,
    *,
    connect_timeout_seconds: float = CONNECT_TIMEOUT_SECONDS,
    max_attempts: int = MAX_ATTEMPTS,
    region_name: str | None = None,
    signature_version: str | None = None,
) -> Any:
    """A client of `service` (its endpoint from botocore's own settings: AWS_ENDPOINT_URL locally)
    in `region_name`, or the function's own region; signing with `signature_version` if given."""
    config = _config(connect_timeout_seconds, read_timeout_seconds, max_attempts)
    if signature_version is not None:
        config = config.merge(Config(signature_version=signature_version))
    return get_session().create_client(service, region_name=region_name, config=config)
