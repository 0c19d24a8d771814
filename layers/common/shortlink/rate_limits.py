"""How many links an API key may create per minute: a fixed one-minute window per key.

The count lives in the store (one conditional increment per create), so every execution
environment sees the same budget. A refused create waits for the next window.
"""

from datetime import datetime
from typing import Protocol

from shortlink.errors import RateLimited

WINDOW_SECONDS = 60


class WindowCounter(Protocol):
    def take(self, subject: str, window: int, limit: int, expires_at_epoch: int) -> bool:
        """Count one more use of `subject` in `window` if fewer than `limit` were counted."""


def take_create_allowance(key_id: str, limit: int, now: datetime, counter: WindowCounter) -> None:
    """Count this create against the key's minute; raise RateLimited once the minute is used up.
    A limit of 0 means no limit."""
    if limit <= 0:
        return
    epoch = int(now.timestamp())
    window = epoch // WINDOW_SECONDS
    next_window = (window + 1) * WINDOW_SECONDS
    if not counter.take(f"create-rate#{key_id}", window, limit, expires_at_epoch=next_window + WINDOW_SECONDS):
        raise RateLimited(retry_after=max(1, next_window - epoch))
