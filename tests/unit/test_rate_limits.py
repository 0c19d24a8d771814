"""The per-key create allowance: a fixed one-minute window."""

from datetime import UTC, datetime

import pytest

from shortlink.access.rate_limits import CreateAllowance, take_create_allowance, take_unlock_attempt
from shortlink.errors import RateLimited


class InMemoryWindows:
    def __init__(self) -> None:
        self.counts: dict[tuple[str, int], int] = {}

    def take(self, subject: str, window: int, limit: int, expires_at_epoch: int) -> bool:
        count = self.counts.get((subject, window), 0)
        if count >= limit:
            return False
        self.counts[(subject, window)] = count + 1
        return True

    def give_back(self, subject: str, window: int) -> None:
        self.counts[(subject, window)] = max(0, self.counts.get((subject, window), 0) - 1)


def at(second: int) -> datetime:
    return datetime.fromtimestamp(1_800_000_000 - 1_800_000_000 % 900 + second, UTC)


def test_a_key_gets_its_limit_per_minute_then_waits_for_the_next_one():
    windows = InMemoryWindows()
    for _ in range(3):
        take_create_allowance("key-1", 3, at(10), windows)
    with pytest.raises(RateLimited) as refused:
        take_create_allowance("key-1", 3, at(45), windows)
    assert refused.value.retry_after == 15
    take_create_allowance("key-2", 3, at(45), windows)  # another key has its own minute
    take_create_allowance("key-1", 3, at(60), windows)  # the next minute


def test_retry_after_is_at_least_a_second():
    windows = InMemoryWindows()
    take_create_allowance("k", 1, at(59), windows)
    with pytest.raises(RateLimited) as refused:
        take_create_allowance("k", 1, at(59), windows)
    assert refused.value.retry_after == 1


def test_zero_means_no_limit_and_no_count():
    windows = InMemoryWindows()
    for _ in range(100):
        take_create_allowance("k", 0, at(0), windows)
    assert windows.counts == {}


def test_password_attempts_are_limited_per_link_and_client_for_a_quarter_hour():
    windows = InMemoryWindows()
    for _ in range(3):
        take_unlock_attempt("abc", "203.0.113.9", 3, at(0), windows)
    with pytest.raises(RateLimited) as refused:
        take_unlock_attempt("abc", "203.0.113.9", 3, at(60), windows)
    assert refused.value.retry_after == 15 * 60 - 60
    take_unlock_attempt("abc", "198.51.100.1", 3, at(60), windows)  # another client
    take_unlock_attempt("xyz", "203.0.113.9", 3, at(60), windows)  # another link
    take_unlock_attempt("abc", "203.0.113.9", 3, at(15 * 60), windows)  # the next window
    # The client's address is kept only as a hash.
    assert not any("203.0.113.9" in subject for subject, _ in windows.counts)


def test_a_create_allowance_given_back_is_there_to_take_again():
    windows = InMemoryWindows()
    first = CreateAllowance("k", 1, at(10), windows)
    first.take()
    first.give_back()
    CreateAllowance("k", 1, at(20), windows).take()
    with pytest.raises(RateLimited):
        CreateAllowance("k", 1, at(30), windows).take()
