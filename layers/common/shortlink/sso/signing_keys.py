"""The user pool's signing keys by key id, from a key set its source keeps: read once, and read
again when a token names a key not in it (Cognito rotates keys). The source decides how often a
read may happen (shortlink.adapters.http.jwks: at most once a minute), so tokens with made-up key
ids cannot make the console fetch on every request."""

from collections.abc import Callable, Mapping
from typing import Any

Jwk = Mapping[str, Any]
# The key set document ({"keys": [{"kid": ..., "kty": "RSA", ...}]}); True asks for a fresh read.
KeySet = Callable[[bool], Mapping[str, Any]]


def _by_id(document: Mapping[str, Any], key_id: str) -> Jwk | None:
    keys = document.get("keys") if isinstance(document, Mapping) else None
    found = (key for key in (keys if isinstance(keys, list) else []) if isinstance(key, Mapping))
    return next((key for key in found if key.get("kid") == key_id), None)


class SigningKeys:
    def __init__(self, key_set: KeySet) -> None:
        self._key_set = key_set

    def key(self, key_id: str) -> Jwk | None:
        """The public key with this id, or None if the pool has none."""
        return _by_id(self._key_set(False), key_id) or _by_id(self._key_set(True), key_id)
