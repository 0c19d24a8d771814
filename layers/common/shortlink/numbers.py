"""Whole numbers read from people (forms, import files, command lines): one parser for all.

ASCII digits only. Python's int() and str.isdigit() also take other scripts' digits ("٣" is 3)
and superscripts or circled digits that int() then refuses ("²", "③"); neither is a number a
person meant to type here. Surrounding spaces are ignored; a sign only where the field allows
one; no exponent, fraction, underscore or inner space.
"""

import re

SIGNED = re.compile(r"[+-]?[0-9]+")
UNSIGNED = re.compile(r"[0-9]+")
# More digits than any field takes: refused before int() (which has a limit of its own).
MAX_DIGITS = 18
SPACES = " \t\r\n"


class NotAWholeNumber(ValueError):
    """The text is not a whole number of the field's range; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def whole_number(
    text: str, field: str, *, minimum: int | None = None, maximum: int | None = None, signed: bool = False
) -> int:
    """The whole number `text` spells in ASCII digits, within [minimum, maximum] when given;
    NotAWholeNumber naming `field` otherwise."""
    digits = text.strip(SPACES)
    pattern = SIGNED if signed else UNSIGNED
    if not pattern.fullmatch(digits) or len(digits.lstrip("+-")) > MAX_DIGITS:
        raise NotAWholeNumber(field, f"must be a whole number in the digits 0-9{_range(minimum, maximum)}")
    number = int(digits)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise NotAWholeNumber(field, f"must be a whole number{_range(minimum, maximum)}")
    return number


def _range(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f" from {minimum} to {maximum}"
    if minimum is not None:
        return f" of at least {minimum}"
    return f" of at most {maximum}" if maximum is not None else ""


def ascii_digits_only(value: object) -> object:
    """A pydantic before-validator for whole numbers a request's query carries: its text in
    ASCII digits (pydantic's own int takes "+3", "3_0", "3.0" and other scripts' digits); the
    field's range is then checked by the field."""
    if isinstance(value, str) and (not UNSIGNED.fullmatch(value) or len(value) > MAX_DIGITS):
        raise ValueError("must be a whole number in the digits 0-9")
    return value
