"""The unique-visitor sketch: within its documented error, mergeable, idempotent."""

import hashlib

import pytest

from shortlink.clicks.unique_visitors import (
    STANDARD_ERROR,
    estimate,
    estimate_registers,
    packed_registers,
    registers_of,
    sketch_element,
)


def visitors(count: int, salt: str = "") -> list[str]:
    return [hashlib.sha256(f"{salt}visitor {i}".encode()).hexdigest()[:32] for i in range(count)]


@pytest.mark.parametrize("count", [0, 1, 10, 100, 1_000, 10_000, 100_000])
def test_the_estimate_is_within_three_standard_errors(count):
    sketch = {sketch_element(visitor) for visitor in visitors(count)}
    # Small counts are linear counting (nearly exact); large ones HyperLogLog at 3.25 %.
    assert abs(estimate(sketch) - count) <= max(1, 3 * STANDARD_ERROR * count)


def test_a_visitor_counted_twice_is_one_and_sketches_merge_by_union():
    morning, evening = visitors(3_000, "a"), visitors(2_000, "b")
    both = {sketch_element(v) for v in morning} | {sketch_element(v) for v in evening + morning[:500]}
    assert abs(estimate(both) - 5_000) <= 3 * STANDARD_ERROR * 5_000
    assert estimate({sketch_element(v) for v in morning * 2}) == estimate({sketch_element(v) for v in morning})


def test_the_sketch_stays_small():
    # A number set in one DynamoDB item: at most 1,024 registers times the ranks seen.
    assert len({sketch_element(v) for v in visitors(100_000)}) < 12_000


def test_registers_stay_small_where_the_set_of_elements_grows():
    # A busy day's sketch as registers: packed under 600 bytes, where its element set holds
    # thousands of numbers (about 4 bytes each in DynamoDB).
    found = {sketch_element(v) for v in visitors(100_000)}
    assert len(found) > 7_000
    assert len(packed_registers(registers_of(found))) < 600
    assert estimate_registers(registers_of(found)) == estimate(found)
