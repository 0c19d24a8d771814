"""The per-key create allowance (a fixed one-minute window) and the guessing limits (sliding
windows per client, an IPv6 client by its /64, and a ceiling per link)."""

from datetime import UTC, datetime

import pytest

from shortlink.access.rate_limits import (
    LINK_ATTEMPTS_PER_WINDOW,
    LINK_WINDOW_SECONDS,
    LOG_WRITE_TRIES,
    CreateAllowance,
    client_block,
    take_attempt,
    take_create_allowance,
    take_sign_in_attempt,
    take_unlock_attempt,
)
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


class InMemoryLogs:
    def __init__(self) -> None:
        self.logs: dict[str, tuple[list[float], int]] = {}
        self.lost_races = 0  # this many writes lose to a concurrent one first

    def attempts(self, subject: str) -> tuple[list[float], int]:
        return self.logs.get(subject, ([], 0))

    def record_attempts(self, subject: str, times: list[float], version: int, expires_at_epoch: int) -> bool:
        if self.lost_races:
            self.lost_races -= 1
            self.logs[subject] = (self.attempts(subject)[0], self.attempts(subject)[1] + 1)
            return False
        assert self.attempts(subject)[1] == version
        self.logs[subject] = (times, version + 1)
        return True


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
    windows = InMemoryLogs()
    for _ in range(3):
        take_unlock_attempt("abc", "203.0.113.9", 3, at(0), windows)
    with pytest.raises(RateLimited) as refused:
        take_unlock_attempt("abc", "203.0.113.9", 3, at(60), windows)
    assert refused.value.retry_after == 15 * 60 - 60
    take_unlock_attempt("abc", "198.51.100.1", 3, at(60), windows)  # another client
    take_unlock_attempt("xyz", "203.0.113.9", 3, at(60), windows)  # another link
    take_unlock_attempt("abc", "203.0.113.9", 3, at(15 * 60), windows)  # the next window
    # The client's address is kept only as a hash.
    assert not any("203.0.113.9" in subject for subject in windows.logs)


def test_a_create_allowance_given_back_is_there_to_take_again():
    windows = InMemoryWindows()
    first = CreateAllowance("k", 1, at(10), windows)
    first.take()
    first.give_back()
    CreateAllowance("k", 1, at(20), windows).take()
    with pytest.raises(RateLimited):
        CreateAllowance("k", 1, at(30), windows).take()


def test_the_window_slides_so_no_more_than_the_limit_fit_across_a_boundary():
    logs = InMemoryLogs()
    # Ten attempts in the last minute of a quarter hour, then ten more just after its end
    for second in range(840, 850):
        take_unlock_attempt("abc", "203.0.113.9", 10, at(second), logs)
    with pytest.raises(RateLimited) as refused:
        take_unlock_attempt("abc", "203.0.113.9", 10, at(15 * 60 + 1), logs)
    # The client waits until its oldest attempt is a quarter hour old
    assert refused.value.retry_after == 840 + 15 * 60 - (15 * 60 + 1)
    take_unlock_attempt("abc", "203.0.113.9", 10, at(840 + 15 * 60 + 1), logs)


def test_an_ipv6_client_is_its_64_and_an_ipv4_mapped_one_its_ipv4_address():
    assert client_block("2001:db8:1:2:aaaa::1") == client_block("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_block("2001:db8:1:3::1") != client_block("2001:db8:1:2::1")
    assert client_block("::ffff:203.0.113.9") == client_block("203.0.113.9") == "203.0.113.9"
    logs = InMemoryLogs()
    # Three addresses of one /64 share ten guesses
    for n in range(10):
        take_unlock_attempt("abc", f"2001:db8:1:2::{n % 3 + 1}", 10, at(n), logs)
    with pytest.raises(RateLimited):
        take_unlock_attempt("abc", "2001:db8:1:2::4", 10, at(11), logs)


def test_a_links_ceiling_over_all_clients_holds_for_a_minute_at_most():
    logs = InMemoryLogs()
    for n in range(LINK_ATTEMPTS_PER_WINDOW):
        take_unlock_attempt("abc", f"198.51.100.{n}", 10, at(n), logs)
    # A new client is refused while the link's minute is full, for the rest of that minute only
    with pytest.raises(RateLimited) as refused:
        take_unlock_attempt("abc", "203.0.113.77", 10, at(LINK_ATTEMPTS_PER_WINDOW), logs)
    assert refused.value.retry_after <= LINK_WINDOW_SECONDS
    take_unlock_attempt("abc", "203.0.113.77", 10, at(LINK_WINDOW_SECONDS + 1), logs)
    take_unlock_attempt("other", "203.0.113.77", 10, at(LINK_ATTEMPTS_PER_WINDOW), logs)  # another link's own


def test_an_attempt_that_loses_a_race_reads_the_log_again():
    logs = InMemoryLogs()
    logs.lost_races = 2
    take_attempt("s", 60, 1, at(0), logs)
    assert logs.attempts("s")[0] == [at(0).timestamp()]
    logs.lost_races = LOG_WRITE_TRIES
    with pytest.raises(RateLimited):
        take_attempt("t", 60, 5, at(0), logs)


def signed_in(logs: InMemoryLogs, address: str, email: str, second: int) -> None:
    take_sign_in_attempt(address, 10, at(second), logs, email, 10).succeeded()


def failed(logs: InMemoryLogs, seconds: range, email: str = "", address: str = "") -> None:
    """Failed sign-ins, one a second: on `email` (else a new account each), from `address` (else
    a new address each)."""
    for second in seconds:
        client = address or f"203.0.113.{second % 250}"
        take_sign_in_attempt(client, 10, at(second), logs, email or f"guess{second}@example.com", 10)


def refused(logs: InMemoryLogs, address: str, email: str, second: int) -> bool:
    try:
        take_sign_in_attempt(address, 10, at(second), logs, email, 10)
    except RateLimited:
        return True
    return False


def test_only_failed_sign_ins_count_so_an_office_behind_one_address_is_never_locked_out():
    logs = InMemoryLogs()
    # Given ten people signing in right from one address
    for second in range(10):
        signed_in(logs, "198.51.100.7", f"p{second}@example.com", second)
    # Then a colleague behind the same NAT signs in too
    signed_in(logs, "198.51.100.7", "colleague@example.com", 11)
    # And failures still bound the address: ten, then refused
    failed(logs, range(12, 22), address="198.51.100.7")
    assert refused(logs, "198.51.100.7", "colleague@example.com", 30)


def test_a_success_forgets_the_accounts_failures_but_not_the_addresss():
    logs = InMemoryLogs()
    failed(logs, range(9), "ada@example.com")
    signed_in(logs, "203.0.113.50", "ada@example.com", 20)
    # Her account takes ten guesses again (the bound is per window after her last success) ...
    failed(logs, range(30, 40), "ada@example.com")
    assert refused(logs, "192.0.2.99", "ada@example.com", 41)
    # ... and a guesser's own success never wipes the failures of the address it guessed from
    failed(logs, range(50, 59), address="198.51.100.9")
    signed_in(logs, "198.51.100.9", "guesser@example.com", 60)
    failed(logs, range(61, 62), address="198.51.100.9")
    assert refused(logs, "198.51.100.9", "victim@example.com", 62)


def test_a_step_passed_gives_its_attempt_back_and_keeps_the_earlier_failures():
    logs = InMemoryLogs()
    failed(logs, range(9), "ada@example.com")
    # The right password, a TOTP code still to come: this attempt is given back, the nine stay
    take_sign_in_attempt("203.0.113.60", 10, at(10), logs, "ada@example.com", 10).passed()
    failed(logs, range(11, 12), "ada@example.com")  # a wrong code
    assert refused(logs, "203.0.113.62", "ada@example.com", 12)


def test_a_locked_account_costs_the_address_nothing_and_a_key_sign_in_counts_the_address_only():
    logs = InMemoryLogs()
    for second in range(3):
        take_sign_in_attempt(f"203.0.113.{second}", 10, at(second), logs, "ada@example.com", 3)
    for second in range(5):
        with pytest.raises(RateLimited):
            take_sign_in_attempt("198.51.100.1", 10, at(10 + second), logs, "ada@example.com", 3)
    attempt = take_sign_in_attempt("198.51.100.1", 10, at(20), logs)
    assert attempt.account is None
    assert [len(times) for subject, (times, _) in logs.logs.items() if subject.startswith("console-sign-in#")] == [
        1, 1, 1, 1,
    ]  # fmt: skip
