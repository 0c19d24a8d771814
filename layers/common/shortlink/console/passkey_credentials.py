"""A passkey's answer as the console's page posts it: the browser's PublicKeyCredential in
WebAuthn's JSON encoding (RegistrationResponseJSON when a passkey is made,
AuthenticationResponseJSON when one signs in), checked for its shape and size before the pool
sees it. The pool checks what it means (challenge, origin, signature)."""

import json
import re
from typing import Any, Literal

from shortlink.people.errors import InvalidMemberOption

MAX_CREDENTIAL_CHARS = 16 * 1024
MAX_FIELD_CHARS = 8 * 1024  # an attestation object with its certificates fits
BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
REQUIRED = {
    "registration": ("clientDataJSON", "attestationObject"),
    "authentication": ("clientDataJSON", "authenticatorData", "signature"),
}
OPTIONAL = {"registration": ("publicKey", "authenticatorData"), "authentication": ("userHandle",)}
MAX_TRANSPORTS = 8

Ceremony = Literal["registration", "authentication"]


def _refused(reason: str) -> InvalidMemberOption:
    return InvalidMemberOption("credential", f"The passkey's answer is not valid: {reason}.")


def _encoded(value: Any, name: str) -> str:
    if not isinstance(value, str) or not BASE64URL.fullmatch(value):
        raise _refused(f"{name} must be base64url text")
    if len(value) > MAX_FIELD_CHARS:
        raise _refused(f"{name} is longer than {MAX_FIELD_CHARS} characters")
    return value


def parsed_credential(text: str, ceremony: Ceremony) -> dict[str, Any]:
    """The credential posted as JSON text, reduced to the fields WebAuthn defines (each a
    base64url string of bounded length); InvalidMemberOption naming what is wrong."""
    if not text:
        raise _refused("the browser sent none (was the passkey prompt cancelled?)")
    if len(text) > MAX_CREDENTIAL_CHARS:
        raise _refused(f"it is longer than {MAX_CREDENTIAL_CHARS} characters")
    try:
        posted = json.loads(text)
    except ValueError:
        raise _refused("it is not JSON") from None
    if not isinstance(posted, dict) or not isinstance(posted.get("response"), dict):
        raise _refused("it is not a public key credential")
    if posted.get("type") != "public-key":
        raise _refused("its type must be public-key")
    identifier = _encoded(posted.get("id"), "id")
    if _encoded(posted.get("rawId"), "rawId") != identifier:
        raise _refused("id and rawId differ")
    answer = posted["response"]
    response: dict[str, Any] = {name: _encoded(answer.get(name), name) for name in REQUIRED[ceremony]}
    response |= {name: _encoded(answer[name], name) for name in OPTIONAL[ceremony] if answer.get(name)}
    if ceremony == "registration":
        if isinstance(answer.get("publicKeyAlgorithm"), int):
            response["publicKeyAlgorithm"] = answer["publicKeyAlgorithm"]
        transports = answer.get("transports", [])
        if not isinstance(transports, list) or len(transports) > MAX_TRANSPORTS:
            raise _refused("transports must be a short list")
        response["transports"] = [_transport(each) for each in transports]
    attachment = posted.get("authenticatorAttachment")
    credential: dict[str, Any] = {
        "id": identifier,
        "rawId": identifier,
        "type": "public-key",
        "response": response,
        "clientExtensionResults": {},
    }
    if attachment in ("platform", "cross-platform"):
        credential["authenticatorAttachment"] = attachment
    return credential


def _transport(value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[a-z-]{1,16}", value):
        raise _refused("a transport must be a short lower-case word")
    return value
