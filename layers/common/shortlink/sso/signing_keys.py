"""The user pool's signing keys (its JWKS), fetched once and kept: read again after an hour, or
sooner for a key id not seen yet (Cognito rotates keys), at most once a minute so that tokens
with made-up key ids cannot make the console fetch on every request."""

from collections.abc import Callable, Mapping
from typing import Any

KEYS_TTL_SECONDS = 3600.0
UNKNOWN_KEY_REFETCH_SECONDS = 60.0

Jwk = Mapping[str, Any]


class SigningKeys:
    def __init__(self, fetch: Callable[[], Mapping[str, Any]], clock: Callable[[], float]) -> None:
        self._fetch = fetch  # the key set document: {"keys": [{"kid": ..., "kty": "RSA", ...}]}
        self._clock = clock
        self._keys: dict[str, Jwk] = {}
        self._fetched_at: float | None = None

    def _refresh(self) -> None:
        document = self._fetch()
        keys = document.get("keys") if isinstance(document, Mapping) else None
        self._keys = {
            str(key["kid"]): key
            for key in (keys if isinstance(keys, list) else [])
            if isinstance(key, Mapping) and "kid" in key
        }
        self._fetched_at = self._clock()

    def key(self, key_id: str) -> Jwk | None:
        """The public key with this id, or None if the pool has none."""
        age = None if self._fetched_at is None else self._clock() - self._fetched_at
        stale = age is None or age >= KEYS_TTL_SECONDS
        if stale or (key_id not in self._keys and age is not None and age >= UNKNOWN_KEY_REFETCH_SECONDS):
            self._refresh()
        return self._keys.get(key_id)
