"""API keys: generated once, shown once, stored only as a SHA-256 hash.

Keys carry 190 random bits, so a fast unsalted hash is safe (nothing to brute force);
the hash is the lookup key, so checking a key is one GetItem.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from shortlink import base62

KEY_PREFIX = "sl_"
KEY_RANDOM_CHARS = 32
BEARER_PREFIX = "bearer "
# What a key may do; keys made before scopes existed keep all of them.
SCOPES = frozenset({"links:read", "links:write", "stats:read", "admin"})


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    name: str
    created_at: datetime
    revoked: bool = False
    scopes: frozenset[str] = SCOPES

    def allows(self, scope: str) -> bool:
        return scope in self.scopes


class ApiKeyStore(Protocol):
    def find_by_hash(self, key_hash: str) -> ApiKey | None:
        """The key stored under this hash, or None."""


def generate_api_key() -> str:
    """A new key in clear text: prefix + 32 uniformly random base62 characters."""
    return KEY_PREFIX + "".join(secrets.choice(base62.ALPHABET) for _ in range(KEY_RANDOM_CHARS))


def hash_api_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def key_id_for(key_hash: str) -> str:
    """The public, non-secret name of a key: a prefix of its hash."""
    return key_hash[:12]


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not authorization or not authorization.lower().startswith(BEARER_PREFIX):
        return None
    token = authorization[len(BEARER_PREFIX) :].strip()
    return token or None


def authenticate(authorization: str | None, store: ApiKeyStore) -> ApiKey | None:
    """The active key that the header carries, or None."""
    token = bearer_token(authorization)
    if token is None or len(token) > 128:
        return None
    key = store.find_by_hash(hash_api_key(token))
    if key is None or key.revoked:
        return None
    return key
