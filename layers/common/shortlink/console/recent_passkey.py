"""A passkey sign-in of the last few minutes, which re-authenticates a person as their password
and a code would (to turn TOTP off, or make new recovery codes): the person's subject and
the moment it ends, sealed in a short-lived HttpOnly cookie signed as sessions are. A session
alone proves no recent sign-in (it lives 12 hours, and a workspace switch signs it anew).
Pure code: the secret and the clock are given."""

from datetime import datetime, timedelta

from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from shortlink.access.sealed_values import seal, unseal
from shortlink.console.sessions import COOKIE_PATH, cookie_value

RECENT_PASSKEY_COOKIE = "console_recent_passkey"
RECENT_PASSKEY_LIFETIME = timedelta(minutes=5)
PURPOSE = "recent-passkey"
MAX_COOKIE_CHARS = 256


def recent_passkey_cookie(subject: str, now: datetime, secret: bytes) -> Cookie:
    """The cookie that says `subject` signed in with a passkey `now` (as the session's: no script
    reads it, only the console gets it, over HTTPS)."""
    ends = int((now + RECENT_PASSKEY_LIFETIME).timestamp())
    return Cookie(
        name=RECENT_PASSKEY_COOKIE,
        value=seal([subject, ends], PURPOSE, secret),
        path=COOKIE_PATH,
        secure=True,
        http_only=True,
        same_site=SameSite.STRICT_MODE,
        max_age=int(RECENT_PASSKEY_LIFETIME.total_seconds()),
    )


def signed_in_with_passkey_recently(cookies: list[str], subject: str, now: datetime, secret: bytes) -> bool:
    """Whether the request's cookies say `subject` signed in with a passkey within the lifetime."""
    values = unseal(cookie_value(cookies, RECENT_PASSKEY_COOKIE), PURPOSE, secret, MAX_COOKIE_CHARS)
    if values is None or len(values) != 2:
        return False
    signed, ends = values
    return signed == subject and isinstance(ends, int) and now.timestamp() < ends
