"""A passkey sign-in's recent-re-authentication cookie (shortlink.console.recent_passkey): it
names one person, ends after five minutes, and a forged or another secret's cookie says nothing."""

from datetime import UTC, datetime, timedelta

from shortlink.console.recent_passkey import (
    RECENT_PASSKEY_COOKIE,
    RECENT_PASSKEY_LIFETIME,
    recent_passkey_cookie,
    signed_in_with_passkey_recently,
)

SECRET = b"s" * 32
NOW = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)


def cookies(value: str) -> list[str]:
    return ["console_session=x", f"{RECENT_PASSKEY_COOKIE}={value}"]


def test_the_cookie_names_its_person_for_five_minutes_and_is_httponly():
    cookie = recent_passkey_cookie("sub-1", NOW, SECRET)
    assert (cookie.http_only, cookie.secure, cookie.path, cookie.max_age) == (True, True, "/console", 300)
    jar = cookies(cookie.value)
    assert signed_in_with_passkey_recently(jar, "sub-1", NOW + timedelta(minutes=4), SECRET)
    assert not signed_in_with_passkey_recently(jar, "sub-2", NOW, SECRET)
    assert not signed_in_with_passkey_recently(jar, "sub-1", NOW + RECENT_PASSKEY_LIFETIME, SECRET)


def test_a_forged_missing_or_foreign_cookie_says_nothing():
    value = recent_passkey_cookie("sub-1", NOW, SECRET).value
    assert not signed_in_with_passkey_recently(cookies(value), "sub-1", NOW, b"t" * 32)
    assert not signed_in_with_passkey_recently(cookies(value[:-2] + "xx"), "sub-1", NOW, SECRET)
    assert not signed_in_with_passkey_recently(["console_session=x"], "sub-1", NOW, SECRET)
    assert not signed_in_with_passkey_recently(cookies("A" * 5000), "sub-1", NOW, SECRET)
