"""A sign-in between its password and its answer (a TOTP code, a new password): the pool's
handle of it, the email and any invitation being accepted, sealed in a short-lived HttpOnly
cookie signed as sessions are. Pure code: the secret and the clock are given."""

import hashlib
import hmac
import json
from datetime import datetime, timedelta

from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from shortlink.console.sessions import COOKIE_PATH, _b64, _unb64
from shortlink.people.ports import Challenge

CHALLENGE_COOKIE = "console_challenge"
CHALLENGE_LIFETIME = timedelta(minutes=3)  # Cognito's own sign-in session lasts 3 minutes
MAX_CHALLENGE_COOKIE_CHARS = 3500


def _signature(payload: str, secret: bytes) -> str:
    return _b64(hmac.new(secret, f"challenge|{payload}".encode(), hashlib.sha256).digest())


def seal_challenge(challenge: Challenge, invitation_token: str, now: datetime, secret: bytes) -> str:
    ends = int((now + CHALLENGE_LIFETIME).timestamp())
    payload = _b64(json.dumps([challenge.kind, challenge.email, challenge.session, invitation_token, ends]).encode())
    return f"{payload}.{_signature(payload, secret)}"


def open_challenge(cookie: str | None, now: datetime, secret: bytes) -> tuple[Challenge, str] | None:
    """The challenge and invitation token a cookie seals, or None if missing, forged or expired."""
    if not cookie or len(cookie) > MAX_CHALLENGE_COOKIE_CHARS or cookie.count(".") != 1:
        return None
    payload, signature = cookie.split(".")
    if not hmac.compare_digest(signature, _signature(payload, secret)):
        return None
    try:
        kind, email, session, token, ends = json.loads(_unb64(payload))
    except (ValueError, TypeError):
        return None
    if kind not in ("totp", "new_password") or now.timestamp() >= int(ends):
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
