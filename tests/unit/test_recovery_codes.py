"""Recovery codes (shortlink.people.recovery_codes): ten random codes, kept only as HMACs under a
key, each spent once, all ended by a new set; typed forms (case, spaces, dashes) accepted,
anything else refused before the store is asked."""

import pytest

from shortlink.people.recovery_codes import ALPHABET, CODE_COUNT, code_hash, issue_codes, normalized, redeem

KEY = b"k" * 32


class MemoryCodes:
    """The store port in memory (the DynamoDB adapter is tested in tests/e2e/test_people_store.py)."""

    def __init__(self) -> None:
        self.kept: dict[str, set[str]] = {}
        self.asked = 0

    def replace(self, subject: str, hashes: set[str]) -> None:
        self.kept[subject] = set(hashes)

    def spend(self, subject: str, code_hash: str) -> bool:
        self.asked += 1
        if code_hash not in self.kept.get(subject, set()):
            return False
        self.kept[subject].discard(code_hash)
        return True

    def remaining(self, subject: str) -> int:
        return len(self.kept.get(subject, ()))

    def clear(self, subject: str) -> None:
        self.kept.pop(subject, None)


def test_ten_distinct_codes_are_kept_only_as_keyed_hashes():
    store = MemoryCodes()
    codes = issue_codes(store, "sub-1", KEY)
    assert len(set(codes)) == CODE_COUNT
    assert all(len(code) == 11 and code[5] == "-" for code in codes)
    assert store.kept["sub-1"] == {code_hash(code.replace("-", ""), KEY) for code in codes}
    assert not any(code.replace("-", "") in kept for kept in store.kept["sub-1"] for code in codes)
    # Another key gives other hashes: the table alone tests no guess
    assert code_hash(codes[0].replace("-", ""), b"other") not in store.kept["sub-1"]


def test_each_code_works_once_for_its_person_only():
    store = MemoryCodes()
    codes = issue_codes(store, "sub-1", KEY)
    assert not redeem(store, "sub-2", codes[0], KEY)
    assert redeem(store, "sub-1", f"  {codes[0].upper()} ", KEY)
    assert not redeem(store, "sub-1", codes[0], KEY)
    assert store.remaining("sub-1") == CODE_COUNT - 1
    assert redeem(store, "sub-1", codes[1].replace("-", " "), KEY)


def test_new_codes_end_the_old_ones():
    store = MemoryCodes()
    old = issue_codes(store, "sub-1", KEY)
    new = issue_codes(store, "sub-1", KEY)
    assert not set(old) & set(new)
    assert not any(redeem(store, "sub-1", code, KEY) for code in old)
    assert all(redeem(store, "sub-1", code, KEY) for code in new)
    assert store.remaining("sub-1") == 0


NOT_CODES = [
    "",
    "abcde",
    "abcde-fghij",
    "abcde-fghi",
    "abcde-fghjkm",
    "abcde\u2010fghjk",
    "\uff10" * 10,
    "a" * 33,
    "ILOU0-12345",
]


@pytest.mark.parametrize("typed", NOT_CODES)
def test_anything_that_cannot_be_a_code_is_refused_before_the_store(typed):
    # Too short or long, a letter left out of the alphabet (i, l, o, u), another dash, other digits
    store = MemoryCodes()
    assert normalized(typed) is None
    assert not redeem(store, "sub-1", typed, KEY)
    assert store.asked == 0


def test_a_code_is_read_whatever_case_spaces_or_dashes_it_was_typed_with():
    assert normalized(" ABCDE fghjk ") == normalized("abcdefghjk") == "abcdefghjk"
    assert normalized("a-b-c-d-e-0-1-2-3-4") == "abcde01234"
    assert set(ALPHABET) == set("0123456789abcdefghjkmnpqrstvwxyz")
