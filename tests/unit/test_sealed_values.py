"""Values sealed for the browser: read back only for their own purpose, with their own secret."""

import pytest

from shortlink.access.sealed_values import seal, unseal

SECRET = b"s" * 32


def test_a_sealed_list_reads_back_for_its_purpose_only():
    sealed = seal(["key-hash", 1, 2], "session", SECRET)
    assert unseal(sealed, "session", SECRET, 512) == ["key-hash", 1, 2]
    # A session's cookie is no SSO sign-in's state, and a challenge's is no session
    assert unseal(sealed, "sso-login", SECRET, 512) is None
    assert unseal(seal(["totp"], "challenge", SECRET), "session", SECRET, 512) is None
    assert unseal(sealed, "session", b"t" * 32, 512) is None


@pytest.mark.parametrize(
    "sealed",
    [None, "", "no-dot", "a.b.c", "x" * 600, "e30.forged", seal({"not": "a list"}, "session", SECRET)],  # type: ignore[arg-type]
)
def test_missing_long_forged_or_malformed_values_read_as_none(sealed):
    assert unseal(sealed, "session", SECRET, 512) is None


def test_a_changed_payload_breaks_its_signature():
    payload, signature = seal(["a", 1], "session", SECRET).split(".")
    changed = seal(["b", 1], "session", SECRET).split(".")[0]
    assert unseal(f"{changed}.{signature}", "session", SECRET, 512) is None
    assert unseal(f"{payload}.{signature}", "session", SECRET, 512) == ["a", 1]
