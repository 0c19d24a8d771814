import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shortlink.codes import base62
from shortlink.codes.generator import CodeGenerator
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.codes.permutation import FeistelPermutation
from tests.fakes import InMemoryCounter

KEY = b"unit-test-permutation-key-0123456789"
SEVEN = base62.space_size(7)


@settings(max_examples=300)
@given(st.integers(min_value=0, max_value=SEVEN - 1))
def test_permutation_stays_in_range_and_inverts(value):
    permutation = FeistelPermutation(KEY, SEVEN)
    image = permutation.permute(value)
    assert 0 <= image < SEVEN
    assert permutation.invert(image) == value


@given(st.integers(min_value=4, max_value=5000), st.binary(min_size=16, max_size=32))
@settings(max_examples=25, deadline=None)
def test_permutation_is_a_bijection_of_small_domains(domain, key):
    permutation = FeistelPermutation(key, domain)
    assert sorted(permutation.permute(value) for value in range(domain)) == list(range(domain))


def test_keys_give_different_orders():
    first = FeistelPermutation(KEY, SEVEN)
    second = FeistelPermutation(KEY[::-1], SEVEN)
    assert [first.permute(i) for i in range(50)] != [second.permute(i) for i in range(50)]


def test_consecutive_codes_do_not_step_by_a_constant():
    # Given codes for ids 0..999 (what a multiplicative shuffle would give away)
    codes = CodeGenerator(IdBlockAllocator(InMemoryCounter(), 1000), KEY, 7)
    generated = [codes.next_code() for _ in range(1000)]
    # Then the last characters of consecutive codes change by many different steps
    last = [base62.ALPHABET.index(code[-1]) for code in generated]
    steps = {(b - a) % 62 for a, b in itertools.pairwise(last)}
    assert len(steps) > 40
    # And the codes themselves are not in counting order
    values = [base62.decode(code) for code in generated]
    assert sum(b > a for a, b in itertools.pairwise(values)) < 600


@pytest.mark.parametrize(("key", "domain"), [(b"short", SEVEN), (KEY, 3)])
def test_weak_parameters_are_refused(key, domain):
    with pytest.raises(ValueError, match="at least"):
        FeistelPermutation(key, domain)
