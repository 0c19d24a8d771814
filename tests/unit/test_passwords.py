"""Link passwords: salted PBKDF2-SHA256 with at least 600,000 iterations."""

import hashlib
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.access.passwords import (
    ITERATIONS,
    MAX_ITERATIONS,
    hash_password,
    is_password_hash,
    password_hash_problem,
    password_matches,
)


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
        f"pbkdf2_sha256$6000000${salt}${digest}",  # each unlock would cost 10 s at 512 MB
        f"pbkdf2_sha256$600000$!!${digest}",
    ):
        assert not is_password_hash(text), text


SALT, DIGEST = "E0VCQ+PiTQLMsjQkiIBCbA", "GGyW7fvqMIDrhbM98A6m6CwgZ4Si/KWge8aYd/WJJgw"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f"pbkdf2_sha256$600000$E0VCQ+PiTQLMsjQkiIBCb${DIGEST}", "salt"),  # 21 characters: 4n+1, no base64
        (f"pbkdf2_sha256$600000$E0VCQ+PiTQLMsjQki${DIGEST}", "salt"),  # 17 characters, as the issue found
        (f"pbkdf2_sha256$600000$E0VCQ+PiTQLMsjQkiIBCbB${DIGEST}", "salt"),  # not canonical (stray bits)
        (f"pbkdf2_sha256$600000$E0VCQ+Pi${DIGEST}", "salt"),  # 6 bytes
        (f"pbkdf2_sha256$600000${SALT}$GGyW7fvqMIDrhbM98A6m6Cwg", "hash"),  # 18 bytes
        (f"pbkdf2_sha256$600000${SALT}${DIGEST}A", "hash"),
        (f"pbkdf2_sha256$600000${SALT}${DIGEST}==", "hash"),
        (f"pbkdf2_sha256$\u0666\u0660\u0660\u0660\u0660\u0660${SALT}${DIGEST}", "iterations"),  # Arabic-Indic
        (f"pbkdf2_sha256${MAX_ITERATIONS + 1}${SALT}${DIGEST}", "iterations"),
        (f"pbkdf2_sha256$0${SALT}${DIGEST}", "iterations"),
        (f"pbkdf2_sha256$${SALT}${DIGEST}", "iterations"),
        (f"pbkdf2_sha256$600000${SALT}${DIGEST}$x", "pbkdf2_sha256$<iterations>"),
    ],
)
def test_a_hash_of_another_shape_is_refused_with_the_reason(text, problem):
    found = password_hash_problem(text)
    assert found is not None
    assert problem in found
    assert not password_matches("anything", text)  # and a stored one matches nothing, raising nothing


def test_the_bound_on_iterations_is_accepted():
    assert is_password_hash(f"pbkdf2_sha256${MAX_ITERATIONS}${SALT}${DIGEST}")


def test_an_unlock_at_the_bound_costs_at_most_twice_ours_and_well_under_the_redirects_timeout():
    # What one unlock may cost: measured, one PBKDF2 at the bound on this machine.
    assert MAX_ITERATIONS <= 2 * ITERATIONS
    started = time.perf_counter()
    hashlib.pbkdf2_hmac("sha256", b"x" * 128, b"s" * 16, MAX_ITERATIONS)
    assert time.perf_counter() - started < 3.0  # about 0.65 s on one idle core; 10 s is the timeout


@given(st.text(alphabet=st.sampled_from(list("pbkdf2_sha256$0123456789+/=AZaz\u0663")), max_size=60))
def test_any_stored_text_matches_nothing_without_raising(text):
    assert not password_matches("", text)
