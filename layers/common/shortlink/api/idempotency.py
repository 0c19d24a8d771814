"""The API door's idempotency: a create sent with an `Idempotency-Key` runs once per key and
caller, through Powertools' idempotency utility; a retry gets the first answer."""

import re
from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools.utilities.idempotency import (
    BasePersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyPersistenceLayerError,
    IdempotencyValidationError,
)

from shortlink.api.requests import ApiRequest
from shortlink.errors import IdempotencyKeyReused, InvalidLinkOption, RequestInProgress, StorageUnavailable

IDEMPOTENCY_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")
IDEMPOTENCY = IdempotencyConfig(
    event_key_jmespath="[owner, key]",
    payload_validation_jmespath="request",  # the same key with another body is refused
    expires_after_seconds=24 * 3600,
)


def idempotency_key(key: str | None) -> str | None:
    """The Idempotency-Key a request sent, if any; InvalidLinkOption (422) for one that is not
    1-255 printable ASCII characters."""
    if key is not None and not IDEMPOTENCY_KEY_PATTERN.fullmatch(key):
        raise InvalidLinkOption("Idempotency-Key", "Idempotency-Key: 1-255 printable ASCII characters")
    return key


class OncePerKey:
    """Runs a command once per (caller, key): its answer is stored for 24 hours, and a retry with
    the same key and request gets it back; the same key with another request is refused."""

    def __init__(
        self, store: BasePersistenceLayer, owner: str, key: str, request: Mapping[str, Any], prefix: str
    ) -> None:
        self._store = store
        self._prefix = prefix
        # Scoped by account: two callers may pick the same Idempotency-Key.
        self._attempt = {"owner": owner, "key": key, "request": dict(request)}

    def __call__(self, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        def attempt(attempt: dict[str, Any]) -> dict[str, Any]:
            return run()

        once = idempotent_function(
            attempt, data_keyword_argument="attempt", persistence_store=self._store, config=IDEMPOTENCY,
            key_prefix=self._prefix,
        )  # fmt: skip
        try:
            answer: dict[str, Any] = once(attempt=self._attempt)
        except IdempotencyValidationError:
            raise IdempotencyKeyReused(self._attempt["key"]) from None
        except IdempotencyAlreadyInProgressError:
            raise RequestInProgress(self._attempt["key"]) from None
        except IdempotencyPersistenceLayerError as error:
            raise StorageUnavailable(f"idempotency record not read or written: {error}") from error
        return answer


def once_per_key(
    request: ApiRequest, body: Mapping[str, Any], prefix: str, store: Callable[[], BasePersistenceLayer]
) -> OncePerKey | None:
    """The request's idempotency (None without an Idempotency-Key): once per key and `body` in
    its caller's account, kept in the `store` the composition root builds."""
    key = idempotency_key(request.idempotency_key)
    return None if key is None else OncePerKey(store(), request.actor.owner, key, body, prefix)
