"""Unique visitors, approximately: a HyperLogLog sketch with 1,024 registers.

Each visitor hash becomes one number, register * 64 + rank (its sketch element); a register's
value is the largest rank of its elements. A sketch is kept in one of two forms:

- a set of elements, for a counters item that sees few visitors: `ADD` to a DynamoDB number set
  is atomic and idempotent (a click offered twice adds nothing the second time) and travels in
  the counters' own write;
- its registers (1,024 bytes, zlib-packed to at most ~800 and usually far fewer), for a busy
  one: a set grows with every distinct (register, rank) seen, about 12,000 elements (~48 KB)
  at 100,000 visitors, while registers stay the same size whatever the traffic.

Both merge by taking each register's maximum, so sketches of hours, days and regions combine
exactly. Standard error 1.04 / sqrt(1024) = 3.25 %; small counts are nearly exact (linear counting).
"""

import math
import zlib
from collections.abc import Iterable

PRECISION = 10
REGISTERS = 1 << PRECISION
RANK_BITS = 64 - PRECISION
ALPHA = 0.7213 / (1 + 1.079 / REGISTERS)
STANDARD_ERROR = 1.04 / math.sqrt(REGISTERS)
Registers = bytes | bytearray  # one rank per register


def sketch_element(visitor: str) -> int:
    """The number one visitor hash (hex, at least 16 digits) contributes to a sketch."""
    value = int(visitor[:16], 16)
    register = value >> RANK_BITS
    rest = value & ((1 << RANK_BITS) - 1)
    rank = RANK_BITS - rest.bit_length() + 1
    return register * 64 + rank


def registers_of(elements: Iterable[int], into: bytearray | None = None) -> bytearray:
    """The registers of a set of elements (merged into `into` when given)."""
    registers = into if into is not None else bytearray(REGISTERS)
    for element in elements:
        register, rank = divmod(int(element), 64)
        if 0 <= register < REGISTERS and rank > registers[register]:
            registers[register] = rank
    return registers


def merge_registers(into: bytearray, other: Registers) -> bool:
    """Raise `into` to `other` register by register; whether anything rose."""
    raised = False
    for index, rank in enumerate(other):
        if rank > into[index]:
            into[index] = rank
            raised = True
    return raised


def packed_registers(registers: Registers) -> bytes:
    return zlib.compress(bytes(registers), 9)


def unpacked_registers(blob: bytes) -> bytearray:
    """Registers from their packed form; ValueError for anything else."""
    try:
        registers = bytearray(zlib.decompress(blob))
    except zlib.error as error:
        raise ValueError(f"not a packed sketch: {error}") from None
    if len(registers) != REGISTERS:
        raise ValueError("a packed sketch has the wrong number of registers")
    return registers


def estimate_registers(registers: Registers) -> int:
    """How many distinct visitors a sketch's registers have seen."""
    raw = ALPHA * REGISTERS * REGISTERS / sum(2.0**-rank for rank in registers)
    empty = registers.count(0)
    if raw <= 2.5 * REGISTERS and empty:
        return round(REGISTERS * math.log(REGISTERS / empty))
    return round(raw)


def estimate(elements: Iterable[int]) -> int:
    """How many distinct visitors a set of elements (or the union of several) has seen."""
    return estimate_registers(registers_of(elements))
