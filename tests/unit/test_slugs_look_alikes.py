"""Slugs against generated codes: the spellings that read the same (pure, no store)."""

from hypothesis import given
from hypothesis import strategies as st

from shortlink.codes import base62
from shortlink.errors import InvalidLinkOption
from shortlink.links.slugs import generated_look_alikes, slug_key

codes = st.text(alphabet=base62.ALPHABET, min_size=7, max_size=7)


@given(codes)
def test_every_look_alike_reads_the_same_and_has_a_codes_shape(code):
    try:
        spellings = generated_look_alikes(code, 7)
    except InvalidLinkOption:  # too many to check: refused, so nothing to read
        return
    assert len(spellings) == len(set(spellings))
    for spelling in spellings:
        assert slug_key(spelling) == slug_key(code)
        assert len(spelling) == 7
        assert set(spelling) <= set(base62.ALPHABET)
    if spellings:
        assert code in spellings


def test_the_spellings_of_a_word_are_every_case_and_look_alike():
    spellings = generated_look_alikes("kgsuc4v", 7)
    assert len(spellings) == 2**6
    assert "KgsUc4V" in spellings
    assert len(generated_look_alikes("promo26", 7)) == 2**3 * 3 * 3  # p r m; o o; 2 6


def test_slugs_no_generated_code_could_equal_have_nothing_to_check():
    assert generated_look_alikes("spring-sale", 7) == []
    assert generated_look_alikes("ab_cdef", 7) == []
    assert generated_look_alikes("short", 7) == []
