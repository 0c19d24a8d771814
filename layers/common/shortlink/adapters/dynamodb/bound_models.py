"""What every pynamodb model of this package shares: its Meta (timeouts, retries), the binding of
a model to a table named at run time (and, for the home region's tables of a deployment in several
regions, to that region), and the translation of pynamodb's errors into the domain's.

The endpoint comes from botocore's own settings (AWS_ENDPOINT_URL locally).
"""

from typing import TypeVar, cast

from pynamodb.exceptions import PynamoDBException
from pynamodb.models import Model

from shortlink.adapters.botocore_clients import CONNECT_TIMEOUT_SECONDS, MAX_ATTEMPTS, READ_TIMEOUT_SECONDS
from shortlink.errors import StorageUnavailable

ModelT = TypeVar("ModelT", bound=Model)


class TableMeta:
    table_name = "unbound"
    connect_timeout_seconds = CONNECT_TIMEOUT_SECONDS
    read_timeout_seconds = READ_TIMEOUT_SECONDS
    max_retry_attempts = MAX_ATTEMPTS


def bound_model(model: type[ModelT], table_name: str, region: str | None = None) -> type[ModelT]:
    """A subclass of `model` that reads and writes `table_name` (in `region`, else the function's own)."""
    meta = type("Meta", (TableMeta,), {"table_name": table_name, "region": region})
    return cast(type[ModelT], type(model.__name__, (model,), {"Meta": meta}))


def error_code(error: PynamoDBException) -> str:
    return getattr(error, "cause_response_code", None) or ""


def unavailable(error: PynamoDBException) -> StorageUnavailable:
    return StorageUnavailable(f"DynamoDB request failed: {error_code(error) or error}")
