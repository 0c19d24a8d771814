"""Values the console keeps in the browser (a session, a sign-in's next step, an SSO sign-in's
state): a JSON list in base64url, signed with HMAC-SHA256 under a purpose of its own, so a value
sealed for one purpose is never accepted for another. Pure code: the secret is given."""

import base64
import hashlib
import hmac
import json
from typing import Any


def b64(data: bytes) -> str:
    """base64url without padding, as cookies and PKCE carry it."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _signature(payload: str, purpose: str, secret: bytes) -> str:
    return b64(hmac.new(secret, f"{purpose}|{payload}".encode(), hashlib.sha256).digest())


def seal(values: list[Any], purpose: str, secret: bytes) -> str:
    """`values` sealed for `purpose`: readable by anyone, changed by no one without the secret."""
    payload = b64(json.dumps(values).encode())
    return f"{payload}.{_signature(payload, purpose, secret)}"


def unseal(sealed: str | None, purpose: str, secret: bytes, max_chars: int) -> list[Any] | None:
    """The values `sealed` carries for `purpose`, or None if it is missing, too long, forged or
    malformed (the caller checks what they say: their count, types and expiry)."""
    if not sealed or len(sealed) > max_chars or sealed.count(".") != 1:
        return None
    payload, signature = sealed.split(".")
    if not hmac.compare_digest(signature, _signature(payload, purpose, secret)):
        return None
    try:
        values = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:  # signed by us, so only a changed secret's format gets here
        return None
    return values if isinstance(values, list) else None
