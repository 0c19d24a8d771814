import threading

import pytest

from shortlink.codes import base62
from shortlink.codes.generator import CodeGenerator
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.errors import CodeSpaceExhausted
from tests.fakes import InMemoryCounter

KEY = b"unit-test-permutation-key-0123456789"


def test_nothing_is_reserved_until_the_first_id():
    counter = InMemoryCounter()
    IdBlockAllocator(counter, 1000)
    CodeGenerator(IdBlockAllocator(counter, 1000), KEY)
    assert counter.reservations == 0


def test_one_counter_update_per_block():
    # Given an allocator with blocks of 1,000
    counter = InMemoryCounter()
    allocator = IdBlockAllocator(counter, 1000)
    # When 2,500 ids are taken
    ids = [allocator.next_id() for _ in range(2500)]
    # Then three blocks were reserved, and the ids are 0..2499 in order
    assert counter.reservations == 3
    assert ids == list(range(2500))


def test_allocators_sharing_a_counter_never_overlap():
    counter = InMemoryCounter()
    allocators = [IdBlockAllocator(counter, 100) for _ in range(4)]
    results: list[list[int]] = [[] for _ in allocators]

    def take(index: int) -> None:
        results[index].extend(allocators[index].next_id() for _ in range(1000))

    threads = [threading.Thread(target=take, args=(i,)) for i in range(len(allocators))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [value for result in results for value in result]
    assert len(set(everything)) == 4000


def test_codes_are_fixed_length_base62_and_distinct():
    codes = CodeGenerator(IdBlockAllocator(InMemoryCounter(), 1000), KEY, 7)
    generated = [codes.next_code() for _ in range(5000)]
    assert len(set(generated)) == 5000
    assert all(len(code) == 7 and set(code) <= set(base62.ALPHABET) for code in generated)


def test_running_out_of_codes_is_loud():
    counter = InMemoryCounter()
    counter.value = base62.space_size(4)  # the next block starts past the last 4-char code
    codes = CodeGenerator(IdBlockAllocator(counter, 10), KEY, 4)
    with pytest.raises(CodeSpaceExhausted):
        codes.next_code()


def test_block_size_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        IdBlockAllocator(InMemoryCounter(), 0)
