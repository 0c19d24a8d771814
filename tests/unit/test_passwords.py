"""Link passwords: salted PBKDF2-SHA256 with at least 600,000 iterations."""

from shortlink.access.passwords import ITERATIONS, hash_password, is_password_hash, password_matches


def test_a_password_is_stored_as_a_salted_pbkdf2_hash():
    stored = hash_password("correct horse", iterations=1_000)
    algorithm, iterations, _salt, _digest = stored.split("$")
    assert (algorithm, iterations) == ("pbkdf2_sha256", "1000")
    assert "correct horse" not in stored
    assert hash_password("correct horse", iterations=1_000) != stored  # a fresh salt each time
    assert password_matches("correct horse", stored)
    assert not password_matches("correct horsE", stored)
    assert not password_matches("", stored)


def test_the_default_cost_is_owasps_figure():
    assert ITERATIONS >= 600_000
    assert hash_password("x" * 6).split("$")[1] == str(ITERATIONS)


def test_a_malformed_stored_hash_matches_nothing():
    assert not password_matches("anything", "plain-text")
    assert not password_matches("anything", "md5$1$abc$def")


def test_only_hashes_of_our_shape_and_a_bounded_cost_pass_as_hashes():
    assert is_password_hash(hash_password("launch-2026", iterations=1_000))
    salt, digest = "E0VCQ+PiTQLMsjQkiIBCbA", "GGyW7fvqMIDrhbM98A6m6CwgZ4Si/KWge8aYd/WJJgw"
    for text in (
        "secret",
        f"md5$600000${salt}${digest}",
        f"pbkdf2_sha256$x${salt}${digest}",
        f"pbkdf2_sha256$6000001${salt}${digest}",  # each unlock would cost 3 s of CPU
        f"pbkdf2_sha256$600000$!!${digest}",
    ):
        assert not is_password_hash(text), text
