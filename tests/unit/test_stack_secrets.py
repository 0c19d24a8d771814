"""Stack secrets given inline (the local stack) are checked like those read from SSM."""

import pytest

from shortlink.errors import ConfigurationError
from shortlink.secrets import read_secret


def test_an_inline_secret_is_used_as_given():
    assert read_secret("x" * 16, "", ("VISITOR_SALT", "VISITOR_SALT_PARAMETER"), "the visitor salt") == b"x" * 16


def test_a_short_or_missing_secret_fails_loudly_naming_what_to_set():
    with pytest.raises(ConfigurationError, match="the visitor salt must be at least 16 bytes"):
        read_secret("short", "", ("VISITOR_SALT", "VISITOR_SALT_PARAMETER"), "the visitor salt")
    with pytest.raises(ConfigurationError, match=r"set PERMUTATION_KEY_PARAMETER .* or PERMUTATION_KEY"):
        read_secret("", "", ("PERMUTATION_KEY", "PERMUTATION_KEY_PARAMETER"), "the permutation key")
