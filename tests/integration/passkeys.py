"""A passkey authenticator in software, as a browser and its device answer WebAuthn: a P-256
key per credential, a "none" attestation when one is made, signed assertions (with a counter)
when one signs in. Its answers are WebAuthn's JSON encoding, as the console's page posts them."""

import hashlib
import json
import secrets
import struct
from base64 import urlsafe_b64decode, urlsafe_b64encode
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

USER_PRESENT, USER_VERIFIED, ATTESTED = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftwarePasskey:
    """One authenticator (a phone, a security key): the credentials it made, by id."""

    origin: str
    keys: dict[bytes, ec.EllipticCurvePrivateKey] = field(default_factory=dict)
    counts: dict[bytes, int] = field(default_factory=dict)
    handles: dict[bytes, bytes] = field(default_factory=dict)

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}
        return json.dumps(data).encode()

    def create(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """navigator.credentials.create's answer to PublicKeyCredentialCreationOptionsJSON."""
        key = ec.generate_private_key(ec.SECP256R1())
        credential_id = secrets.token_bytes(32)
        self.keys[credential_id], self.counts[credential_id] = key, 0
        self.handles[credential_id] = unb64url(options["user"]["id"])
        numbers = key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        attested = bytes(16) + struct.pack(">H", len(credential_id)) + credential_id + cbor2.dumps(cose)
        rp_hash = hashlib.sha256(options["rp"]["id"].encode()).digest()
        authenticator_data = (
            rp_hash + bytes([USER_PRESENT | USER_VERIFIED | ATTESTED]) + struct.pack(">I", 0) + attested
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": authenticator_data})
        return {
            "id": b64url(credential_id),
            "rawId": b64url(credential_id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "response": {
                "clientDataJSON": b64url(self._client_data("webauthn.create", options["challenge"], origin)),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def get(
        self, options: dict[str, Any], origin: str | None = None, credential_id: bytes | None = None
    ) -> dict[str, Any]:
        """navigator.credentials.get's answer to PublicKeyCredentialRequestOptionsJSON, with the
        first credential it allows that this authenticator holds (or `credential_id`)."""
        allowed = [unb64url(each["id"]) for each in options.get("allowCredentials", [])]
        chosen = credential_id or next(each for each in allowed if each in self.keys)
        self.counts[chosen] += 1
        rp_hash = hashlib.sha256(options["rpId"].encode()).digest()
        flags = bytes([USER_PRESENT | USER_VERIFIED])
        authenticator_data = rp_hash + flags + struct.pack(">I", self.counts[chosen])
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signed = authenticator_data + hashlib.sha256(client_data).digest()
        signature = self.keys[chosen].sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(chosen),
            "rawId": b64url(chosen),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(authenticator_data),
                "signature": b64url(signature),
                "userHandle": b64url(self.handles[chosen]),
            },
            "clientExtensionResults": {},
        }
