"""A sign-in between its password and its answer (a TOTP code, a new password), or between a
passkey sign-in's start and the browser's signature: the pool's handle of it, the email and
any invitation being accepted, sealed in a short-lived HttpOnly cookie signed as sessions are.
Pure code: the secret and the clock are given."""

from datetime import datetime, timedelta

from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from shortlink.access.sealed_values import seal, unseal
from shortlink.console.sessions import COOKIE_PATH
from shortlink.people.ports import Challenge

CHALLENGE_COOKIE = "console_challenge"
CHALLENGE_LIFETIME = timedelta(minutes=3)  # Cognito's own sign-in session lasts 3 minutes
MAX_CHALLENGE_COOKIE_CHARS = 3500
CHALLENGE_PURPOSE = "challenge"


def seal_challenge(challenge: Challenge, invitation_token: str, now: datetime, secret: bytes) -> str:
    ends = int((now + CHALLENGE_LIFETIME).timestamp())
    return seal([challenge.kind, challenge.email, challenge.session, invitation_token, ends], CHALLENGE_PURPOSE, secret)


def open_challenge(cookie: str | None, now: datetime, secret: bytes) -> tuple[Challenge, str] | None:
    """The challenge and invitation token a cookie seals, or None if missing, forged or expired."""
    values = unseal(cookie, CHALLENGE_PURPOSE, secret, MAX_CHALLENGE_COOKIE_CHARS)
    if values is None or len(values) != 5:
        return None
    kind, email, session, token, ends = values
    if kind not in ("totp", "new_password", "passkey") or not isinstance(ends, int) or now.timestamp() >= ends:
        return None
    return Challenge(kind, str(email), str(session)), str(token)


def challenge_cookie(value: str) -> Cookie:
    """As the session's cookie: no script reads it, only the console gets it, over HTTPS."""
    return Cookie(
        name=CHALLENGE_COOKIE,
        value=value,
        path=COOKIE_PATH,
        secure=True,
        http_only=True,
        same_site=SameSite.STRICT_MODE,
        max_age=int(CHALLENGE_LIFETIME.total_seconds()) if value else 0,
    )
