"""Generated short codes, in one of two modes:

- sequence (default): allocate an id from a block, permute it with the key, write it in base62.
  Codes never collide, and consecutive links get unrelated codes; in a deployment of several
  regions, each issues ids of its own partition (shortlink.codes.partitions).
- random: draw each character with the operating system's CSPRNG (`secrets.choice`, unbiased);
  the conditional put catches the rare collision and the link takes another draw.

Either way, a code that spells a blocked word (shortlink.codes.blocked_words) is skipped.
"""

import secrets
from typing import Protocol

from shortlink.codes import base62
from shortlink.codes.blocked_words import spells_a_blocked_word
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.codes.partitions import IdPartition
from shortlink.codes.permutation import FeistelPermutation
from shortlink.errors import CodeSpaceExhausted

# A run of skipped codes this long means the blocklist, not chance, rejects everything.
MAX_SKIPPED_CODES = 1000


class CodeSource(Protocol):
    length: int  # of every code it gives

    def next_code(self) -> str:
        """A code no blocked word is spelled in."""


def _clean(draw: "CodeSource") -> str:
    for _ in range(MAX_SKIPPED_CODES):
        code = draw.next_code()
        if not spells_a_blocked_word(code):
            return code
    raise RuntimeError(f"{MAX_SKIPPED_CODES} codes in a row spelled blocked words")


class _SequenceDraw:
    def __init__(self, allocator: IdBlockAllocator, key: bytes, length: int, partition: IdPartition) -> None:
        self.length = length
        self._allocator = allocator
        self._partition = partition
        self._permutation = FeistelPermutation(key, base62.space_size(length))

    def next_code(self) -> str:
        value = self._partition.id_of(self._allocator.next_id(), self._permutation.domain_size)
        if not 0 <= value < self._permutation.domain_size:
            raise CodeSpaceExhausted(f"all {self._permutation.domain_size} codes of length {self.length} are used")
        return base62.encode(self._permutation.permute(value), self.length)


class _RandomDraw:
    def __init__(self, length: int) -> None:
        self.length = length

    def next_code(self) -> str:
        return "".join(secrets.choice(base62.ALPHABET) for _ in range(self.length))


class CodeGenerator:
    """Sequence mode (the permuted id counter, of this region's partition)."""

    def __init__(
        self, allocator: IdBlockAllocator, key: bytes, length: int = 7, partition: IdPartition | None = None
    ) -> None:
        self.length = length
        self._draw = _SequenceDraw(allocator, key, length, partition or IdPartition())

    def next_code(self) -> str:
        return _clean(self._draw)


class RandomCodeGenerator:
    """Random mode: no counter, no key; uniqueness is left to the conditional put."""

    def __init__(self, length: int = 7) -> None:
        self.length = length
        self._draw = _RandomDraw(length)

    def next_code(self) -> str:
        return _clean(self._draw)
