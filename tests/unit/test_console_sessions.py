"""Console sessions: signed, expiring cookies and their CSRF tokens (shortlink.console.sessions)."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.access.api_keys import ApiKey
from shortlink.console.sessions import (
    SESSION_LIFETIME,
    cookie_value,
    is_current,
    is_same_origin,
    issue_session,
    read_session,
)

SECRET = b"a-test-secret-of-enough-bytes"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
KEY_HASH = "ab" * 32


def test_a_cookie_reads_back_as_its_session_until_it_expires():
    # Given a session issued now
    session, cookie = issue_session(KEY_HASH, NOW, SECRET)
    # Then it reads back within 12 hours, and not from then on
    assert read_session(cookie, NOW + SESSION_LIFETIME - timedelta(seconds=1), SECRET) == session
    assert session.key_hash == KEY_HASH
    assert read_session(cookie, NOW + SESSION_LIFETIME, SECRET) is None
    assert timedelta(hours=12) == SESSION_LIFETIME


def test_a_cookie_is_not_readable_before_it_was_issued():
    _, cookie = issue_session(KEY_HASH, NOW, SECRET)
    assert read_session(cookie, NOW - timedelta(seconds=1), SECRET) is None


@pytest.mark.parametrize(
    "forge",
    [
        lambda cookie: cookie[:-1] + ("A" if cookie[-1] != "A" else "B"),  # another signature
        lambda cookie: "x" + cookie,  # another payload
        lambda cookie: cookie.replace(".", ""),
        lambda cookie: cookie + ".more",
        lambda cookie: "",
        lambda cookie: "a" * 600,
    ],
)
def test_a_forged_or_altered_cookie_is_no_session(forge):
    _, cookie = issue_session(KEY_HASH, NOW, SECRET)
    assert read_session(forge(cookie), NOW, SECRET) is None


def test_a_cookie_with_a_longer_lifetime_written_by_its_holder_is_refused():
    # The holder rewrites the payload to live a year: the signature no longer matches.
    import base64
    import json

    _, cookie = issue_session(KEY_HASH, NOW, SECRET)
    _, signature = cookie.split(".")
    issued = int(NOW.timestamp())
    payload = base64.urlsafe_b64encode(json.dumps([KEY_HASH, issued, issued + 365 * 86400]).encode())
    assert read_session(payload.decode().rstrip("=") + "." + signature, NOW, SECRET) is None


def test_a_cookie_signed_with_another_secret_is_refused():
    _, cookie = issue_session(KEY_HASH, NOW, b"another-secret-of-enough-bytes")
    assert read_session(cookie, NOW, SECRET) is None


def test_the_csrf_token_belongs_to_its_session_only():
    first, _ = issue_session(KEY_HASH, NOW, SECRET)
    second, _ = issue_session(KEY_HASH, NOW + timedelta(seconds=1), SECRET)
    token = first.csrf_token(SECRET)
    assert first.accepts_csrf(token, SECRET)
    assert not second.accepts_csrf(token, SECRET)
    assert not first.accepts_csrf(None, SECRET)
    assert not first.accepts_csrf("", SECRET)
    assert not first.accepts_csrf(first.csrf_token(b"another-secret-of-enough-bytes"), SECRET)


@pytest.mark.parametrize(
    ("origin", "host", "same"),
    [
        ("https://sho.rt", "sho.rt", True),
        ("http://127.0.0.1:3000", "127.0.0.1:3000", True),
        ("http://localhost:3000", "localhost:3000", True),
        ("http://sho.rt", "sho.rt", False),  # plain http only on loopback
        ("https://evil.example", "sho.rt", False),
        ("https://sho.rt.evil.example", "sho.rt", False),
        ("null", "sho.rt", False),
        (None, "sho.rt", False),
        ("https://sho.rt", None, False),
    ],
)
def test_only_the_consoles_own_origin_may_post(origin, host, same):
    assert is_same_origin(origin, host) is same


def test_the_session_cookie_is_found_among_the_events_cookies():
    assert cookie_value(["a=1", "console_session=abc.def", "b=2"]) == "abc.def"
    assert cookie_value(["a=1"]) is None


def test_a_session_ends_with_its_key_and_at_the_keys_next_sign_out():
    key = ApiKey("k", "me", NOW, expires_at=NOW + timedelta(hours=1), session_generation=4)
    session, cookie = issue_session(KEY_HASH, NOW, SECRET, key.session_generation, key.expires_at)
    assert session.expires_at == int((NOW + timedelta(hours=1)).timestamp())  # not 12 hours
    assert read_session(cookie, NOW + timedelta(hours=1), SECRET) is None
    assert is_current(session, key, NOW)
    assert not is_current(session, replace(key, session_generation=5), NOW)  # signed out since
    assert not is_current(session, replace(key, revoked=True), NOW)


@pytest.mark.parametrize(
    ("origin", "fetch_site", "same"),
    [
        ("https://d111.cloudfront.net", "same-origin", True),
        ("https://evil.example", "cross-site", False),
        ("https://evil.example", "same-site", False),
        ("https://evil.example", None, False),
        ("http://d111.cloudfront.net", "same-origin", False),
        (None, "same-origin", False),
    ],
)
def test_where_the_browsers_host_is_unknown_its_fetch_site_decides(origin, fetch_site, same):
    assert is_same_origin(origin, None, fetch_site) is same


def test_a_persons_session_reads_back_with_its_subject_and_workspace_and_its_own_csrf():
    from shortlink.console.sessions import issue_person_session

    session, cookie = issue_person_session("sub-ann", "ws1", NOW, SECRET, generation=3)
    read = read_session(cookie, NOW, SECRET)
    assert read == session
    assert read is not None
    assert (read.is_person, read.subject, read.workspace_id, read.generation, read.key_hash) == (
        True,
        "sub-ann",
        "ws1",
        3,
        "",
    )
    # Another workspace's session of the same person does not take this one's CSRF token
    other, _ = issue_person_session("sub-ann", "ws2", NOW, SECRET, generation=3)
    assert not other.accepts_csrf(session.csrf_token(SECRET), SECRET)
    assert session.accepts_csrf(session.csrf_token(SECRET), SECRET)
