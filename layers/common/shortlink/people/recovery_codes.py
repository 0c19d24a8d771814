"""One-time recovery codes: ten made when a person turns TOTP on, shown once, each taking the
place of one TOTP code once. Pure code: the store and the key are given.

A code is 10 characters of Crockford-style base32 (50 random bits), shown as two groups of
five. Only its HMAC-SHA256 under a server-side key is stored: the codes are random, not chosen
by people, so a slow KDF buys nothing against guessing (50 bits are out of reach online, where
the sign-in limits bound guesses), while the key means a copy of the table alone gives no
way to test a guess offline; and an HMAC, unsalted, lets the store find and spend a code in one
conditional write."""

import hashlib
import hmac
import secrets

from shortlink.people.ports import RecoveryCodeStore

CODE_COUNT = 10
CODE_CHARS = 10
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # no i, l, o, u: nothing to misread
MAX_CODE_INPUT_CHARS = 32


def new_code() -> str:
    drawn = "".join(secrets.choice(ALPHABET) for _ in range(CODE_CHARS))
    return f"{drawn[:5]}-{drawn[5:]}"


def normalized(code: str) -> str | None:
    """A code as typed (any case, spaces or dashes anywhere) in its stored form, or None if it
    cannot be one."""
    if len(code) > MAX_CODE_INPUT_CHARS:
        return None
    kept = "".join(char for char in code.lower() if char not in " -")
    if len(kept) != CODE_CHARS or any(char not in ALPHABET for char in kept):
        return None
    return kept


def code_hash(code: str, key: bytes) -> str:
    """What the store keeps of a normalized code."""
    return hmac.new(key, code.encode(), hashlib.sha256).hexdigest()


def issue_codes(store: RecoveryCodeStore, subject: str, key: bytes) -> list[str]:
    """Ten new codes for `subject`, to show once; any earlier ones stop working."""
    codes = [new_code() for _ in range(CODE_COUNT)]
    store.replace(subject, {code_hash(normalized(code) or "", key) for code in codes})
    return codes


def redeem(store: RecoveryCodeStore, subject: str, code: str, key: bytes) -> bool:
    """Spend one of `subject`'s codes: True once for each code issued, False for anything else."""
    kept = normalized(code)
    return kept is not None and store.spend(subject, code_hash(kept, key))
