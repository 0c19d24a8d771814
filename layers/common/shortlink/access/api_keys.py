"""API keys: generated once, shown once, stored only as a SHA-256 hash.

Keys carry 190 random bits, so a fast unsalted hash is safe (nothing to brute force);
the hash is the lookup key, so checking a key is one GetItem.

A key holds scopes (what it may do), may expire, and belongs to an account (`owner`: whose
links it works on). A key created with the admin command is its own account; one created
through `POST /keys` joins its creator's, and records the person it acts for (`maker`: the
member who made it, or who made the key that made it), whose role caps it at each use
(shortlink.people.key_access).
"""

import hashlib
import secrets
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Literal, Protocol, get_args

from shortlink.codes import base62
from shortlink.errors import InvalidApiKeyOption, ScopeNotGrantable, StorageUnavailable

KEY_PREFIX = "sl_"
KEY_RANDOM_CHARS = 32
BEARER_PREFIX = "bearer "
READ_ONLY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

Scope = Literal["links:read", "links:write", "stats:read", "admin", "members:read", "members:write"]
LINKS_READ: Scope = "links:read"
LINKS_WRITE: Scope = "links:write"
STATS_READ: Scope = "stats:read"
ADMIN: Scope = "admin"  # manages the account's keys and webhook endpoints
MEMBERS_READ: Scope = "members:read"  # lists the workspace's members and open invitations
MEMBERS_WRITE: Scope = "members:write"  # invites, changes and removes members (shortlink.people.roles)
ALL_SCOPES: frozenset[str] = frozenset(get_args(Scope))
MAX_NAME_CHARS = 64

KeyState = Literal["active", "revoked", "expired"]


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    name: str
    created_at: datetime
    revoked: bool = False
    # Keys stored before scopes existed have none recorded: they keep full access.
    scopes: frozenset[str] = ALL_SCOPES
    expires_at: datetime | None = None
    last_used_on: date | None = None  # UTC day, written at most once a day
    owner: str = ""  # the account whose links it works on; empty: its own (key_id)
    session_generation: int = 0  # moved on by each console Sign out, which ends the key's sessions
    # The person it acts for (a pool's subject) and their address when it was made; empty: nobody
    # (the admin command's keys, keys they make, and keys made before makers were recorded).
    maker: str = ""
    maker_email: str = ""

    def __post_init__(self) -> None:
        if not self.owner:
            object.__setattr__(self, "owner", self.key_id)

    def allows(self, scope: str) -> bool:
        return scope in self.scopes

    def state(self, now: datetime) -> KeyState:
        if self.revoked:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"


class ApiKeyStore(Protocol):
    def find_by_hash(self, key_hash: str, *, fresh: bool = False) -> ApiKey | None:
        """The key stored under this hash, or None; `fresh`: as the latest change left it (before
        a write: no revocation or sign-out that has returned is missed)."""

    def mark_used(self, key_hash: str, day: date) -> None:
        """Record `day` as the key's last use, unless a day as late is recorded already."""


class SessionGenerations(Protocol):
    def end_sessions(self, key_hash: str) -> None:
        """Move the key's session generation on: every console session of the key ends."""


class KeyMaker(Protocol):
    """Who makes a key of their account: a key with the admin scope, or a person (shortlink.people)."""

    @property
    def scopes(self) -> frozenset[str]: ...
    @property
    def expires_at(self) -> datetime | None: ...
    @property
    def owner(self) -> str: ...
    @property
    def maker(self) -> str: ...
    @property
    def maker_email(self) -> str: ...


class MadeKeys(Protocol):
    def revoke_made_by(self, owner: str, maker: str) -> list[str]:
        """Revoke every key of `owner`'s account that acts for `maker`: the ids of those revoked."""


class ApiKeyRegistry(Protocol):
    def add(
        self,
        key_hash: str,
        key_id: str,
        name: str,
        *,
        scopes: frozenset[str] = ALL_SCOPES,
        expires_at: datetime | None = None,
        owner: str = "",
        maker: str = "",
        maker_email: str = "",
    ) -> ApiKey:
        """Store a new key under its hash."""


def generate_api_key() -> str:
    """A new key in clear text: prefix + 32 uniformly random base62 characters."""
    return KEY_PREFIX + "".join(secrets.choice(base62.ALPHABET) for _ in range(KEY_RANDOM_CHARS))


def hash_api_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def key_id_for(key_hash: str) -> str:
    """The public, non-secret name of a key: a prefix of its hash."""
    return key_hash[:12]


def writes(method: str) -> bool:
    """Whether a request of this HTTP method may change something: its caller is then checked
    as the latest change left them (ApiKeyStore.find_by_hash's `fresh`)."""
    return method.upper() not in READ_ONLY_METHODS


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not authorization or not authorization.lower().startswith(BEARER_PREFIX):
        return None
    token = authorization[len(BEARER_PREFIX) :].strip()
    return token or None


def authenticate(authorization: str | None, store: ApiKeyStore, now: datetime, *, fresh: bool = False) -> ApiKey | None:
    """The active key that the header carries, or None (unknown, revoked or expired; `fresh` for
    a request that writes). Its first use of a UTC day records the day: one conditional write per
    key and day, never per request."""
    token = bearer_token(authorization)
    if token is None or len(token) > 128:
        return None
    key_hash = hash_api_key(token)
    key = store.find_by_hash(key_hash, fresh=fresh)
    if key is None or key.state(now) != "active":
        return None
    today = now.date()
    if key.last_used_on is None or key.last_used_on < today:
        try:
            store.mark_used(key_hash, today)
        except StorageUnavailable:  # a busy table must not refuse a valid key: the next request tries again
            return key
        key = replace(key, last_used_on=today)
    return key


def issue_api_key(
    registry: ApiKeyRegistry,
    name: str,
    scopes: frozenset[str],
    expires_at: datetime | None,
    now: datetime,
    owner: str = "",
    maker: str = "",
    maker_email: str = "",
) -> tuple[ApiKey, str]:
    """A new key of `owner`'s account (its own without one), acting for `maker` (nobody without
    one), and its clear text, to be shown once."""
    _check_key_options(name, scopes, expires_at, now)
    plaintext = generate_api_key()
    key_hash = hash_api_key(plaintext)
    key = registry.add(
        key_hash, key_id_for(key_hash), name,
        scopes=scopes, expires_at=expires_at, owner=owner, maker=maker, maker_email=maker_email,
    )  # fmt: skip
    return key, plaintext


def _check_key_options(name: str, scopes: frozenset[str], expires_at: datetime | None, now: datetime) -> None:
    """Refuse what a new key cannot be: the error names the field."""
    if not 1 <= len(name) <= MAX_NAME_CHARS or not name.isprintable():
        raise InvalidApiKeyOption("name", f"name: 1 to {MAX_NAME_CHARS} printable characters")
    if not scopes:
        raise InvalidApiKeyOption("scopes", "scopes: at least one scope is needed")
    if unknown := sorted(scopes - ALL_SCOPES):
        raise InvalidApiKeyOption("scopes", f"scopes: unknown scope {unknown[0]!r} ({', '.join(sorted(ALL_SCOPES))})")
    if expires_at is not None and expires_at <= now:
        raise InvalidApiKeyOption("expires_at", "expires_at: must be in the future")


def first_scope_not_held(creator: KeyMaker, scopes: frozenset[str]) -> str | None:
    """A key grants only scopes it holds itself: no key can make one more powerful than it."""
    return next(iter(sorted(scopes - creator.scopes)), None)


def child_expiry(creator: KeyMaker, expires_at: datetime | None) -> datetime | None:
    """When a key `creator` makes ends: no later than the creator itself. Left out, it ends with
    the creator; a later moment is refused (InvalidApiKeyOption), never silently shortened."""
    if creator.expires_at is None:
        return expires_at
    if expires_at is None:
        return creator.expires_at
    if expires_at > creator.expires_at:
        raise InvalidApiKeyOption(
            "expires_at",
            f"expires_at: must be no later than this key's own expiry ({creator.expires_at.isoformat()})",
        )
    return expires_at


def issue_account_key(
    registry: ApiKeyRegistry,
    creator: KeyMaker,
    name: str,
    scopes: frozenset[str],
    expires_at: datetime | None,
    now: datetime,
) -> tuple[ApiKey, str]:
    """A new key of `creator`'s account (`POST /keys`, the console's Keys page) and its clear
    text, never more powerful than its creator: ScopeNotGrantable if it would hold a scope the
    creator lacks, InvalidApiKeyOption if it would outlive it. It acts for the creator's maker (a
    person, or the person who made the creating key), so that their removal ends it too."""
    if (scope := first_scope_not_held(creator, scopes)) is not None:
        raise ScopeNotGrantable(scope)
    expiry = child_expiry(creator, expires_at)
    return issue_api_key(registry, name, scopes, expiry, now, creator.owner, creator.maker, creator.maker_email)
