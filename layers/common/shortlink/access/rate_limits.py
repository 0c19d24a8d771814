"""Allowances kept in the store, so every execution environment sees the same budget.

- Link creates per API key and minute: a fixed window (one conditional increment per use); a
  refused create waits for the next minute.
- Guesses, password attempts and console sign-ins: a sliding window (a log of the attempts'
  times, read and written back conditionally), so no more than the limit fit in any window's
  length, across a boundary too. A console sign-in's attempt is given back once the
  credentials prove right: only failures count there (SignInAttempt). A client is its
  address, an IPv6 one its /64 (what one line gets). A link also has a ceiling over all
  clients, in a short window: it bounds what many addresses guess together, and locks the
  owner's visitors out for at most that minute.
"""

import contextlib
import hashlib
import ipaddress
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from shortlink.errors import RateLimited, StorageUnavailable

CREATE_WINDOW_SECONDS = 60
UNLOCK_WINDOW_SECONDS = 15 * 60
SIGN_IN_WINDOW_SECONDS = 15 * 60
# Password attempts on one link from all clients together per LINK_WINDOW_SECONDS.
LINK_ATTEMPTS_PER_WINDOW = 30
LINK_WINDOW_SECONDS = 60
IPV6_CLIENT_PREFIX = 64
# Password reset codes asked per 15 minutes: each may send an email.
RESET_REQUESTS_PER_ADDRESS = 5
RESET_REQUESTS_PER_ACCOUNT = 3
# Conditional writes that lose to a concurrent attempt are read and tried again this often.
LOG_WRITE_TRIES = 3


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


class AttemptLog(Protocol):
    def attempts(self, subject: str) -> tuple[list[float], int]:
        """The times (Unix seconds) of `subject`'s logged attempts and the log's version (0: none)."""

    def record_attempts(self, subject: str, times: list[float], version: int, expires_at_epoch: int) -> bool:
        """Replace the log with `times` if it is still at `version`; False if another write came first."""


def client_block(client: str) -> str:
    """Who a client is for a limit: its IPv4 address, or its IPv6 address's /64 (one line's
    worth: a guesser holds them all); an IPv4-mapped IPv6 address is its IPv4 address."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)


def take_attempt(subject: str, window_seconds: int, limit: int, now: datetime, log: AttemptLog) -> None:
    """Log one attempt of `subject` unless `limit` were logged in the last `window_seconds`
    (then RateLimited, until the oldest of them leaves the window)."""
    moment = now.timestamp()
    for _ in range(LOG_WRITE_TRIES):
        logged, version = log.attempts(subject)
        recent = sorted(time for time in logged if moment - window_seconds < time <= moment)
        if len(recent) >= limit:
            raise RateLimited(retry_after=max(1, math.ceil(recent[-limit] + window_seconds - moment)))
        if log.record_attempts(subject, [*recent, moment], version, math.ceil(moment) + window_seconds):
            return
    raise RateLimited(retry_after=1)  # as many attempts at once as tries: the next second decides


def _client_hash(client: str) -> str:
    return hashlib.sha256(client_block(client).encode()).hexdigest()[:16]


def take_unlock_attempt(code: str, client: str, limit: int, now: datetime, log: AttemptLog) -> None:
    """Count one password attempt on `code` from `client` (an address, kept only as a hash):
    RateLimited past `limit` attempts of the client in UNLOCK_WINDOW_SECONDS, or past the link's
    ceiling over all clients. Counted before the password is checked, so a guesser also cannot
    make us spend the hash's CPU time."""
    take_attempt(f"unlock#{code}#{_client_hash(client)}", UNLOCK_WINDOW_SECONDS, limit, now, log)
    take_attempt(f"unlock#{code}", LINK_WINDOW_SECONDS, LINK_ATTEMPTS_PER_WINDOW, now, log)


def _give_back(subject: str, moment: float, window_seconds: int, log: AttemptLog) -> None:
    """Take the attempt logged at `moment` out of `subject`'s log again (a conditional write,
    tried again if another came first); if the store refuses, it stays counted: the safe side."""
    with contextlib.suppress(StorageUnavailable):
        for _ in range(LOG_WRITE_TRIES):
            logged, version = log.attempts(subject)
            if moment not in logged:
                return
            rest = list(logged)
            rest.remove(moment)
            if log.record_attempts(subject, rest, version, math.ceil(max(rest, default=moment)) + window_seconds):
                return


def _forget(subject: str, log: AttemptLog) -> None:
    """Empty `subject`'s log (as _give_back: a write that fails leaves it as it was)."""
    with contextlib.suppress(StorageUnavailable):
        for _ in range(LOG_WRITE_TRIES):
            logged, version = log.attempts(subject)
            if not logged or log.record_attempts(subject, [], version, math.ceil(max(logged))):
                return


def _account_subject(email: str) -> str:
    return f"console-account#{hashlib.sha256(email.strip().lower().encode()).hexdigest()[:16]}"


@dataclass(frozen=True)
class SignInAttempt:
    """A console sign-in attempt, counted before the credentials are checked, so that no guesser
    gets more checks than the limits allow (concurrent ones included): one of the client's
    address and, where the attempt names one, one of the account. Only failures stay counted:
    right credentials give this attempt back, and a completed sign-in also forgets the account's
    earlier failures (its owner got in), so that correct sign-ins from one office's address,
    or a person re-entering their password on Sign-in security, never lock anybody out. The
    address's failures are not forgotten: a guesser's own account must not wipe its count."""

    log: AttemptLog
    moment: float
    address: str
    account: str | None = None

    def passed(self) -> None:
        """The credentials were right (a step done; the pool may ask a code next): no failure."""
        for subject in (self.address, self.account):
            if subject is not None:
                _give_back(subject, self.moment, SIGN_IN_WINDOW_SECONDS, self.log)

    def succeeded(self) -> None:
        """Signed in (or the password re-entered right): no failure, and the account's forgiven."""
        self.passed()
        if self.account is not None:
            _forget(self.account, self.log)


def take_sign_in_attempt(
    client: str, limit: int, now: datetime, log: AttemptLog, email: str | None = None, account_limit: int = 0
) -> SignInAttempt:
    """Count one console sign-in attempt from `client` (an address, its IPv6 /64, kept only as
    a hash) and, with `email`, on that account from any address (kept only as a hash):
    RateLimited once `limit` failures of the address, or `account_limit` of the account, were
    counted in SIGN_IN_WINDOW_SECONDS. The account's limit bounds a guesser spread over many
    addresses to that many guesses at one password; a refusal by it counts nothing against the
    address."""
    address = f"console-sign-in#{_client_hash(client)}"
    take_attempt(address, SIGN_IN_WINDOW_SECONDS, limit, now, log)
    attempt = SignInAttempt(log, now.timestamp(), address)
    if email is None:
        return attempt
    account = _account_subject(email)
    try:
        take_attempt(account, SIGN_IN_WINDOW_SECONDS, account_limit, now, log)
    except RateLimited:
        attempt.passed()  # no credentials were checked: not this address's failure
        raise
    return SignInAttempt(log, attempt.moment, address, account)


def take_password_reset_request(client: str, email: str, now: datetime, log: AttemptLog) -> None:
    """Count one request for a password reset code, from `client` (its IPv6 /64) and for
    `email`, each kept only as a hash: RateLimited past RESET_REQUESTS_PER_ADDRESS or
    RESET_REQUESTS_PER_ACCOUNT in SIGN_IN_WINDOW_SECONDS. Every request counts (each may send an
    email), whether the address has an account or not, so the limit tells nothing of accounts."""
    take_attempt(f"password-reset#{_client_hash(client)}", SIGN_IN_WINDOW_SECONDS, RESET_REQUESTS_PER_ADDRESS, now, log)
    account = hashlib.sha256(email.strip().lower().encode()).hexdigest()[:16]
    take_attempt(f"password-reset-account#{account}", SIGN_IN_WINDOW_SECONDS, RESET_REQUESTS_PER_ACCOUNT, now, log)
