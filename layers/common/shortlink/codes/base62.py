"""Fixed-length base62 over 0-9a-zA-Z."""

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
BASE = len(ALPHABET)
_INDEX = {char: value for value, char in enumerate(ALPHABET)}


def space_size(length: int) -> int:
    """How many distinct codes of `length` characters exist."""
    return int(BASE**length)


def encode(value: int, length: int) -> str:
    """Encode `value` in exactly `length` characters (left-padded with '0')."""
    if not 0 <= value < space_size(length):
        raise ValueError(f"{value} does not fit in {length} base62 characters")
    chars = []
    for _ in range(length):
        value, digit = divmod(value, BASE)
        chars.append(ALPHABET[digit])
    return "".join(reversed(chars))


def decode(code: str) -> int:
    """The integer that `code` encodes; ValueError for characters outside the alphabet."""
    value = 0
    for char in code:
        try:
            value = value * BASE + _INDEX[char]
        except KeyError:
            raise ValueError(f"{char!r} is not a base62 character") from None
    return value
