"""A workspace's SCIM bearer tokens: made by an owner, shown once, stored only as a SHA-256
hash (190 random bits: nothing to brute force, so the hash is the lookup key), revocable at once.
A SCIM token opens /scim/v2 of its workspace and nothing else; an API key never opens SCIM."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from shortlink.access.api_keys import bearer_token
from shortlink.codes import base62

TOKEN_PREFIX = "scim_"  # noqa: S105  (a prefix, no secret)
TOKEN_RANDOM_CHARS = 32
MAX_TOKEN_CHARS = 128


@dataclass(frozen=True)
class ScimToken:
    token_id: str  # public: a prefix of the hash, names the token on the page and in the audit log
    workspace_id: str
    created_by: str  # the owner's email
    created_at: datetime
    revoked: bool = False


class ScimTokens(Protocol):
    def add(self, token_hash: str, token: ScimToken) -> None:
        """Store a new token under its hash."""

    def find_by_hash(self, token_hash: str) -> ScimToken | None:
        """The token stored under this hash (revoked or not), or None."""

    def of_workspace(self, workspace_id: str) -> list[ScimToken]:
        """The workspace's tokens, oldest first."""

    def revoke(self, workspace_id: str, token_id: str) -> bool:
        """Revoke the workspace's token of this id; False if it has none such."""


def hash_token(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def issue_token(tokens: ScimTokens, workspace_id: str, created_by: str, now: datetime) -> tuple[ScimToken, str]:
    """A new token of `workspace_id` and its clear text, to be shown once."""
    plaintext = TOKEN_PREFIX + "".join(secrets.choice(base62.ALPHABET) for _ in range(TOKEN_RANDOM_CHARS))
    token_hash = hash_token(plaintext)
    token = ScimToken(token_hash[:12], workspace_id, created_by, now)
    tokens.add(token_hash, token)
    return token, plaintext


def authenticated(authorization: str | None, tokens: ScimTokens) -> ScimToken | None:
    """The live SCIM token the `Authorization: Bearer` header carries, or None."""
    plaintext = bearer_token(authorization)
    if plaintext is None or len(plaintext) > MAX_TOKEN_CHARS or not plaintext.startswith(TOKEN_PREFIX):
        return None
    found = tokens.find_by_hash(hash_token(plaintext))
    return found if found is not None and not found.revoked else None
