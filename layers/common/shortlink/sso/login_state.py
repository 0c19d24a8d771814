"""A sign-in in progress: its state, nonce and PKCE verifier, kept in the browser in a short-lived
cookie signed with the console's secret (HMAC-SHA256), and the PKCE challenge sent with it.

The state ties the callback to the browser that started the sign-in (and is used once: the
console records it when the callback arrives), the nonce ties the ID token to it, and the
verifier proves to the token endpoint that the code is redeemed by whoever asked for it. A sign-in
through a workspace's own provider (set up in the console) names it and its workspace; an owner's
test sign-in also names the set-up's version and the owner (their subject and email).
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from shortlink.access.sealed_values import b64, seal, unseal

LOGIN_STATE_COOKIE = "console_sso"
LOGIN_STATE_LIFETIME = timedelta(minutes=10)
MAX_COOKIE_CHARS = 1024
# Its own purpose: a session cookie's signature is never a valid login state's, or back.
LOGIN_PURPOSE = "sso-login"


@dataclass(frozen=True)
class OwnerTest:
    """An owner's test sign-in through the workspace's provider, in the set-up's `version`."""

    version: int
    subject: str
    email: str


@dataclass(frozen=True)
class LoginState:
    state: str
    nonce: str
    verifier: str  # PKCE: 43 characters of base64url (RFC 7636 asks 43 to 128)
    expires_at: int  # Unix seconds
    provider: str = ""  # a workspace's own provider; empty: the deploy-time one
    workspace: str = ""  # that provider's workspace
    test: OwnerTest | None = None

    @property
    def challenge(self) -> str:
        """The PKCE S256 challenge of the verifier."""
        return b64(hashlib.sha256(self.verifier.encode()).digest())


def start_login(
    now: datetime, secret: bytes, provider: str = "", workspace: str = "", test: OwnerTest | None = None
) -> tuple[LoginState, str]:
    """A new sign-in's state, nonce and verifier (each 256 random bits) and its cookie value."""
    login = LoginState(
        secrets.token_urlsafe(32),
        secrets.token_urlsafe(32),
        secrets.token_urlsafe(32),
        int((now + LOGIN_STATE_LIFETIME).timestamp()),
        provider,
        workspace,
        test,
    )
    tested = [test.version, test.subject, test.email] if test is not None else [0, "", ""]
    values = [login.state, login.nonce, login.verifier, login.expires_at, provider, workspace, *tested]
    return login, seal(values, LOGIN_PURPOSE, secret)


def read_login_state(cookie: str | None, now: datetime, secret: bytes) -> LoginState | None:
    """The sign-in a cookie value carries, or None if it is missing, forged, malformed or expired."""
    values = unseal(cookie, LOGIN_PURPOSE, secret, MAX_COOKIE_CHARS)
    if values is None or len(values) != 9:
        return None
    state, nonce, verifier, expires_at, provider, workspace, version, subject, email = values
    try:
        test = OwnerTest(int(version), str(subject), str(email)) if version else None
        login = LoginState(str(state), str(nonce), str(verifier), int(expires_at), str(provider), str(workspace), test)
    except (ValueError, TypeError):  # signed by us, so only a changed format gets here
        return None
    return login if now.timestamp() < login.expires_at else None
