"""Fixed-window allowances kept in the store (one conditional increment per use), so every
execution environment sees the same budget: link creates per API key and minute, and password
attempts per link and client address. A refused use waits for the next window.
"""

import contextlib
import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from shortlink.errors import RateLimited, StorageUnavailable

CREATE_WINDOW_SECONDS = 60
UNLOCK_WINDOW_SECONDS = 15 * 60
SIGN_IN_WINDOW_SECONDS = 15 * 60


class WindowCounter(Protocol):
    def take(self, subject: str, window: int, limit: int, expires_at_epoch: int) -> bool:
        """Count one more use of `subject` in `window` if fewer than `limit` were counted."""

    def give_back(self, subject: str, window: int) -> None:
        """Uncount one use of `subject` in `window` (never below zero)."""


def _take(subject: str, window_seconds: int, limit: int, now: datetime, counter: WindowCounter) -> None:
    epoch = int(now.timestamp())
    window = epoch // window_seconds
    next_window = (window + 1) * window_seconds
    if not counter.take(subject, window, limit, expires_at_epoch=next_window + window_seconds):
        raise RateLimited(retry_after=max(1, next_window - epoch))


def take_create_allowance(key_id: str, limit: int, now: datetime, counter: WindowCounter) -> None:
    """Count this create against the key's minute; raise RateLimited once the minute is used up.
    A limit of 0 means no limit."""
    if limit > 0:
        _take(f"create-rate#{key_id}", CREATE_WINDOW_SECONDS, limit, now, counter)


@dataclass(frozen=True)
class CreateAllowance:
    """One create of a key, counted against its minute, and given back if the store refuses the
    link after all (a taken slug, no free code, a busy store): refused requests do not count."""

    key_id: str
    limit: int
    now: datetime
    counter: WindowCounter

    def take(self) -> None:
        take_create_allowance(self.key_id, self.limit, self.now, self.counter)

    def give_back(self) -> None:
        if self.limit > 0:
            # A refund that fails leaves the minute one create short: not worth failing the answer.
            with contextlib.suppress(StorageUnavailable):
                window = int(self.now.timestamp()) // CREATE_WINDOW_SECONDS
                self.counter.give_back(f"create-rate#{self.key_id}", window)


def _client_hash(client: str) -> str:
    return hashlib.sha256(client.encode()).hexdigest()[:16]


def take_unlock_attempt(code: str, client: str, limit: int, now: datetime, counter: WindowCounter) -> None:
    """Count one password attempt on `code` from `client` (an address, kept only as a hash);
    raise RateLimited past `limit` attempts in the window. Counted before the password is
    checked, so a guesser also cannot make us spend the hash's CPU time."""
    _take(f"unlock#{code}#{_client_hash(client)}", UNLOCK_WINDOW_SECONDS, limit, now, counter)


def take_sign_in_attempt(client: str, limit: int, now: datetime, counter: WindowCounter) -> None:
    """Count one console sign-in from `client` (an address, kept only as a hash), as password
    attempts are counted: before the key is looked up; raise RateLimited past `limit`."""
    _take(f"console-sign-in#{_client_hash(client)}", SIGN_IN_WINDOW_SECONDS, limit, now, counter)
