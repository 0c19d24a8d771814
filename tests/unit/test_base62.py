import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.codes import base62


@given(st.integers(min_value=1, max_value=10).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 62**n - 1))))
def test_round_trip_at_fixed_length(length_and_value):
    length, value = length_and_value
    code = base62.encode(value, length)
    assert len(code) == length
    assert set(code) <= set(base62.ALPHABET)
    assert base62.decode(code) == value


def test_alphabet_is_digits_lower_upper():
    assert base62.ALPHABET == "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    assert base62.encode(61, 2) == "0Z"


@pytest.mark.parametrize(("value", "length"), [(-1, 7), (62**7, 7), (62, 1)])
def test_values_outside_the_space_are_refused(value, length):
    with pytest.raises(ValueError, match="does not fit"):
        base62.encode(value, length)


def test_decode_refuses_foreign_characters():
    with pytest.raises(ValueError, match="not a base62"):
        base62.decode("abc-1")
