"""Unique visitors, approximately: a HyperLogLog sketch kept as a set of numbers.

Each visitor hash becomes one number, register * 64 + rank, and the sketch is the set of those
numbers. A register's value is the largest rank in the set. A set suits DynamoDB: `ADD` to a
number set is atomic and idempotent (a click offered twice adds nothing the second time), and
sketches of several hours merge by union. With 1,024 registers the standard error is
1.04 / sqrt(1024) = 3.25 %; small counts are exact or nearly (linear counting).
"""

import math
from collections.abc import Iterable

PRECISION = 10
REGISTERS = 1 << PRECISION
RANK_BITS = 64 - PRECISION
ALPHA = 0.7213 / (1 + 1.079 / REGISTERS)
STANDARD_ERROR = 1.04 / math.sqrt(REGISTERS)


def sketch_element(visitor: str) -> int:
    """The number one visitor hash (hex, at least 16 digits) contributes to a sketch."""
    value = int(visitor[:16], 16)
    register = value >> RANK_BITS
    rest = value & ((1 << RANK_BITS) - 1)
    rank = RANK_BITS - rest.bit_length() + 1
    return register * 64 + rank


def estimate(elements: Iterable[int]) -> int:
    """How many distinct visitors a sketch (or the union of several) has seen."""
    registers = [0] * REGISTERS
    for element in elements:
        register, rank = divmod(int(element), 64)
        if 0 <= register < REGISTERS and rank > registers[register]:
            registers[register] = rank
    raw = ALPHA * REGISTERS * REGISTERS / sum(2.0**-rank for rank in registers)
    empty = registers.count(0)
    if raw <= 2.5 * REGISTERS and empty:
        return round(REGISTERS * math.log(REGISTERS / empty))
    return round(raw)
