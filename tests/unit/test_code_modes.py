"""Random-code mode and the blocked-words filter of generated codes."""

from collections import Counter
from datetime import UTC, datetime

import pytest

from shortlink.codes import base62
from shortlink.codes import generator as codes
from shortlink.codes.blocked_words import spells_a_blocked_word
from shortlink.codes.generator import RandomCodeGenerator
from shortlink.errors import NoFreeCode
from shortlink.links.use_cases import MAX_CODE_ATTEMPTS, create_link
from tests.fakes import InMemoryLinks

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class ScriptedDraw:
    def __init__(self, *codes: str) -> None:
        self.codes = list(codes)
        self.length = 7

    def next_code(self) -> str:
        return self.codes.pop(0)


@pytest.mark.parametrize("code", ["xFuCkab", "aSh1tZZ", "p0rn123", "00wh0re", "Ass0000"])
def test_codes_spelling_a_blocked_word_are_recognised_in_any_case_or_digits(code):
    assert spells_a_blocked_word(code)


@pytest.mark.parametrize("code", ["KgsUc4V", "abc1234", "Zx9Qw2e"])
def test_ordinary_codes_pass(code):
    assert not spells_a_blocked_word(code)


def test_generated_codes_that_spell_a_blocked_word_are_skipped():
    generator = RandomCodeGenerator(7)
    generator._draw = ScriptedDraw("xFuCkab", "sh1tAAA", "Clean12")  # type: ignore[assignment]
    assert generator.next_code() == "Clean12"


def test_random_codes_use_the_whole_alphabet_evenly():
    generator = RandomCodeGenerator(7)
    drawn = [generator.next_code() for _ in range(20_000)]
    assert all(len(code) == 7 and set(code) <= set(base62.ALPHABET) for code in drawn)
    counts = Counter("".join(drawn))
    expected = sum(counts.values()) / len(base62.ALPHABET)
    assert set(counts) == set(base62.ALPHABET)
    # Far beyond chance (about 8 standard deviations), far within any real bias.
    assert all(abs(count - expected) < 400 for count in counts.values())


def test_a_random_collision_takes_another_draw_and_five_fail_loudly():
    links = InMemoryLinks()
    generator = RandomCodeGenerator(7)
    generator._draw = ScriptedDraw("Taken01", "Fresh01")  # type: ignore[assignment]
    create_link("https://example.com/a", "o", ScriptedFixed("Taken01"), links, NOW)
    assert create_link("https://example.com/b", "o", generator, links, NOW).code == "Fresh01"

    generator._draw = ScriptedDraw(*["Taken01"] * MAX_CODE_ATTEMPTS)  # type: ignore[assignment]
    with pytest.raises(NoFreeCode):
        create_link("https://example.com/c", "o", generator, links, NOW)
    assert set(links.items) == {"Taken01", "Fresh01"}


class ScriptedFixed:
    def __init__(self, code: str) -> None:
        self.code = code
        self.length = len(code)

    def next_code(self) -> str:
        return self.code


def test_the_skip_gives_up_loudly_when_everything_is_blocked():
    draw = ScriptedDraw(*["fuckfuck"] * codes.MAX_SKIPPED_CODES)
    with pytest.raises(RuntimeError, match="blocked words"):
        codes._clean(draw)
