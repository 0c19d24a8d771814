"""The one configuration of the stack's AWS clients, plain botocore ones and pynamodb's alike:
Lambda functions answer someone, so they fail fast rather than hang on a stuck connection."""

from functools import cache
from typing import Any

from botocore.config import Config
from botocore.session import get_session

CONNECT_TIMEOUT_SECONDS = 2
READ_TIMEOUT_SECONDS = 5
MAX_ATTEMPTS = 3


@cache
def _config(read_timeout_seconds: float) -> Config:
    return Config(
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        read_timeout=read_timeout_seconds,
        retries={"max_attempts": MAX_ATTEMPTS, "mode": "standard"},
    )


def botocore_client(service: str, read_timeout_seconds: float = READ_TIMEOUT_SECONDS) -> Any:
    """A client of `service` (its endpoint from botocore's own settings: AWS_ENDPOINT_URL locally)."""
    return get_session().create_client(service, config=_config(read_timeout_seconds))
