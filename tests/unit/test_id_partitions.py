"""Codes of several regions: each region issues ids of its own partition, so two regions never
give the same code, and an upgrade from one region never gives a code issued before it."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shortlink.codes import base62
from shortlink.codes.generator import CodeGenerator
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.codes.partitions import MAX_REGIONS, SINGLE_COUNTER, IdPartition, counter_name
from shortlink.codes.permutation import FeistelPermutation
from shortlink.errors import CodeSpaceExhausted
from tests.fakes import InMemoryCounter

KEY = b"unit-test-permutation-key-0123456789"
SEVEN = base62.space_size(7)
indexes = st.integers(min_value=0, max_value=MAX_REGIONS - 1)
counted = st.integers(min_value=0, max_value=SEVEN // MAX_REGIONS - 1)


@settings(max_examples=500)
@given(indexes, counted, indexes, counted)
def test_two_regions_never_issue_the_same_id(first, first_counted, second, second_counted):
    # Given two ids of the 7-character space, each of its region's counter
    one = IdPartition(first).id_of(first_counted, SEVEN)
    other = IdPartition(second).id_of(second_counted, SEVEN)
    # Then they are equal only if they are the same region's same count, and both are in the space
    assert (one == other) == ((first, first_counted) == (second, second_counted))
    assert 0 <= one < SEVEN
    assert 0 <= other < SEVEN


@settings(max_examples=500)
@given(st.integers(min_value=0, max_value=SEVEN), indexes, counted)
def test_an_upgrade_never_issues_an_id_issued_before_it(issued_before, index, count):
    # Given a single-region deployment that issued ids 0 .. issued_before - 1
    partitioned = IdPartition(index).id_of(count, SEVEN)
    # Then a region's id after the upgrade is none of them, while the space holds both
    if issued_before + MAX_REGIONS * (count + 1) <= SEVEN:
        assert partitioned >= issued_before


def test_a_single_region_issues_ids_as_it_always_has():
    assert [IdPartition().id_of(count, SEVEN) for count in range(5)] == [0, 1, 2, 3, 4]
    assert counter_name(None) == SINGLE_COUNTER == "link-ids"
    assert counter_name("eu-central-1") == "link-ids#eu-central-1"
    # The same codes as a generator that knows nothing of partitions
    before = CodeGenerator(IdBlockAllocator(InMemoryCounter(), 10), KEY)
    single = CodeGenerator(IdBlockAllocator(InMemoryCounter(), 10), KEY, 7, IdPartition())
    assert [before.next_code() for _ in range(50)] == [single.next_code() for _ in range(50)]


@settings(max_examples=40, deadline=None)
@given(
    issued_before=st.integers(min_value=0, max_value=300),
    regions=st.lists(
        st.tuples(st.integers(min_value=1, max_value=50), st.integers(min_value=0, max_value=200)),
        min_size=2,
        max_size=MAX_REGIONS,
    ),
    order=st.randoms(use_true_random=False),
)
def test_codes_of_an_upgraded_deployment_never_repeat(issued_before, regions, order):
    # Given a deployment that made `issued_before` codes in one region, then grew to several,
    # each region drawing in blocks of its own size from a counter of its own
    single = CodeGenerator(IdBlockAllocator(InMemoryCounter(), 7), KEY)
    codes = [single.next_code() for _ in range(issued_before)]
    generators = [
        CodeGenerator(IdBlockAllocator(InMemoryCounter(), block), KEY, 7, IdPartition(index))
        for index, (block, _) in enumerate(regions)
    ]
    # When the regions create their links, interleaved in any order
    draws = [index for index, (_, count) in enumerate(regions) for _ in range(count)]
    order.shuffle(draws)
    codes += [generators[index].next_code() for index in draws]
    # Then no code was given twice
    assert len(set(codes)) == len(codes)


def test_the_partition_is_a_slice_of_the_permutation():
    # Every id of a small space is issued by exactly one region's partition or not at all
    space = base62.space_size(2)
    permutation = FeistelPermutation(KEY, space)
    issued = [
        permutation.permute(IdPartition(index).id_of(count, space))
        for index in range(MAX_REGIONS)
        for count in range(space // MAX_REGIONS)
    ]
    assert len(issued) == len(set(issued)) == space - space % MAX_REGIONS


def test_a_region_whose_partition_is_used_up_says_so():
    counter = InMemoryCounter()
    counter.value = base62.space_size(4) // MAX_REGIONS + 1  # past the partition's last id
    codes = CodeGenerator(IdBlockAllocator(counter, 10), KEY, 4, IdPartition(MAX_REGIONS - 1))
    with pytest.raises(CodeSpaceExhausted):
        codes.next_code()


def test_a_region_index_outside_the_partitions_is_refused():
    with pytest.raises(ValueError, match="region index"):
        IdPartition(MAX_REGIONS)
