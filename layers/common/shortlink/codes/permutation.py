"""A keyed bijection of [0, N): a balanced Feistel network with cycle-walking.

Sequential ids go in, values that look unrelated come out, and no two ids share a value.
The Feistel network permutes [0, 2^(2h)) for the smallest even bit width covering N;
cycle-walking re-encrypts until the value falls back inside [0, N), which keeps it a
bijection of [0, N). This hides the order of ids; it is not a secret: a link that must not
be found gets a private code (22 random characters, shortlink.links.model), not this.
"""

import hashlib
import hmac
from collections.abc import Callable

ROUNDS = 8


class FeistelPermutation:
    def __init__(self, key: bytes, domain_size: int, rounds: int = ROUNDS) -> None:
        if len(key) < 16:
            raise ValueError("permutation key must be at least 16 bytes")
        if domain_size < 4:
            raise ValueError("domain must hold at least 4 values")
        self.domain_size = domain_size
        bits = (domain_size - 1).bit_length()
        self._half_bits = (bits + 1) // 2
        self._half_mask = (1 << self._half_bits) - 1
        # One HMAC key schedule per round, derived once per instance (never at import).
        self._round_keys = [
            hmac.new(key, b"shortlink-feistel-round-%d" % i, hashlib.sha256).digest() for i in range(rounds)
        ]

    def _round(self, round_key: bytes, half: int) -> int:
        digest = hmac.new(round_key, half.to_bytes(8, "big"), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") & self._half_mask

    def _encrypt_block(self, value: int) -> int:
        left, right = value >> self._half_bits, value & self._half_mask
        for round_key in self._round_keys:
            left, right = right, left ^ self._round(round_key, right)
        return (left << self._half_bits) | right

    def _decrypt_block(self, value: int) -> int:
        left, right = value >> self._half_bits, value & self._half_mask
        for round_key in reversed(self._round_keys):
            left, right = right ^ self._round(round_key, left), left
        return (left << self._half_bits) | right

    def permute(self, value: int) -> int:
        """The image of `value`; both are in [0, domain_size)."""
        return self._cycle_walk(value, self._encrypt_block)

    def invert(self, value: int) -> int:
        """The inverse of `permute`."""
        return self._cycle_walk(value, self._decrypt_block)

    def _cycle_walk(self, value: int, block: Callable[[int], int]) -> int:
        self._check(value)
        value = block(value)
        while value >= self.domain_size:  # outside [0, N): step on until the walk comes back in
            value = block(value)
        return value

    def _check(self, value: int) -> None:
        if not 0 <= value < self.domain_size:
            raise ValueError(f"{value} is outside [0, {self.domain_size})")
