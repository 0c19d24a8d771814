"""The checks of the user pool's ID token before the console trusts who it names: RS256 only,
signed by one of the pool's keys, issued by the pool to the console's client, an ID token (not
an access token), current (exp and iat, with a little leeway for clocks), for this sign-in (its
nonce) and through the configured identity provider. joserfc checks the signature; it is
imported on the first sign-in, not at the console's start."""

import base64
import binascii
import hmac
import json
from dataclasses import dataclass
from typing import Any

from shortlink.sso.refusals import SsoRefused
from shortlink.sso.signing_keys import SigningKeys

ALGORITHM = "RS256"  # what Cognito signs with; never none, never HS256 keyed by a public key
LEEWAY_SECONDS = 60
MAX_TOKEN_CHARS = 16 * 1024


@dataclass(frozen=True)
class SsoIdentity:
    """Who signed in: their email (lower case), the pool's user name and subject, and the
    identity provider's own id of them."""

    email: str
    username: str
    subject: str
    provider_user_id: str


@dataclass(frozen=True)
class ExpectedToken:
    issuer: str
    client_id: str
    nonce: str
    provider_name: str


def _refused(problem: str) -> SsoRefused:
    return SsoRefused(401, f"The sign-in could not be verified: {problem}.")


def _header(token: str) -> dict[str, Any]:
    try:
        encoded = token.split(".", 1)[0]
        header = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (ValueError, binascii.Error):
        raise _refused("the ID token is not a JSON Web Token") from None
    if not isinstance(header, dict):
        raise _refused("the ID token is not a JSON Web Token")
    return header


def _signed_claims(token: str, keys: SigningKeys) -> dict[str, Any]:
    if len(token) > MAX_TOKEN_CHARS or token.count(".") != 2:
        raise _refused("the ID token is not a JSON Web Token")
    header = _header(token)
    if header.get("alg") != ALGORITHM:
        raise _refused(f"the ID token is signed with {str(header.get('alg'))[:20]!r}, and only {ALGORITHM} is accepted")
    key = keys.key(str(header.get("kid", "")))
    if key is None or key.get("kty") != "RSA":
        raise _refused("the ID token is signed by a key the user pool does not have")
    from joserfc import jwt
    from joserfc.errors import JoseError
    from joserfc.jwk import RSAKey

    try:
        decoded = jwt.decode(token, RSAKey.import_key(dict(key)), algorithms=[ALGORITHM])
    except JoseError:
        raise _refused("the ID token's signature does not match the user pool's key") from None
    except ValueError:  # a payload that is not a JSON object
        raise _refused("the ID token is not a JSON Web Token") from None
    return dict(decoded.claims)


def _number(claims: dict[str, Any], name: str) -> float:
    value = claims.get(name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _refused(f"the ID token has no {name}")
    return float(value)


def verified_identity(token: str, keys: SigningKeys, expected: ExpectedToken, now: float) -> SsoIdentity:
    """Who the ID token names, once every check passes; SsoRefused (401) naming the first that fails."""
    claims = _signed_claims(token, keys)
    if claims.get("iss") != expected.issuer:
        raise _refused("the ID token was issued by another user pool")
    audience = claims.get("aud")
    if audience != expected.client_id and not (isinstance(audience, list) and audience == [expected.client_id]):
        raise _refused("the ID token was issued to another app client")
    if claims.get("token_use") != "id":
        raise _refused("the token is not an ID token")
    if _number(claims, "exp") + LEEWAY_SECONDS <= now:
        raise _refused("the ID token has expired")
    if _number(claims, "iat") - LEEWAY_SECONDS > now:
        raise _refused("the ID token was issued in the future")
    nonce = claims.get("nonce")
    if not isinstance(nonce, str) or not hmac.compare_digest(nonce.encode(), expected.nonce.encode()):
        raise _refused("the ID token belongs to another sign-in (its nonce differs)")
    identities = claims.get("identities")
    through = [i for i in identities if isinstance(i, dict)] if isinstance(identities, list) else []
    provider = next((i for i in through if i.get("providerName") == expected.provider_name), None)
    if provider is None:
        raise _refused(f"the person did not sign in through {expected.provider_name}")
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise _refused("the ID token has no sub")
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email or len(email) > 254:
        raise _refused(f"{expected.provider_name} sent no email address for this person")
    return SsoIdentity(
        email=email.strip().lower(),
        username=str(claims.get("cognito:username", "")),
        subject=subject,
        provider_user_id=str(provider.get("userId", "")),
    )
