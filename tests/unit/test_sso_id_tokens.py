"""The ID token's checks (shortlink.sso.id_tokens): a token of the pool's key passes, and each
way a token can be wrong is refused with its own reason. Keys are generated here."""

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from shortlink.sso.id_tokens import ExpectedToken, verified_identity
from shortlink.sso.refusals import SsoRefused
from shortlink.sso.signing_keys import SigningKeys

ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example"
CLIENT_ID = "consoleclient123"
NONCE = "nonce-of-this-sign-in"
PROVIDER = "Entra"
NOW = 1_800_000_000.0
EXPECTED = ExpectedToken(ISSUER, CLIENT_ID, NONCE, PROVIDER)


@pytest.fixture(scope="module")
def pool_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": "pool-key-1"})


@pytest.fixture
def keys(pool_key: RSAKey) -> SigningKeys:
    document = {"keys": [pool_key.as_dict(private=False)]}
    return SigningKeys(lambda refresh: document)


def claims(**changes: Any) -> dict[str, Any]:
    base = {
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "token_use": "id",
        "sub": "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab",
        "cognito:username": "entra_ada@example.com",
        "email": "Ada@Example.com",
        "nonce": NONCE,
        "iat": int(NOW) - 5,
        "exp": int(NOW) + 300,
        "identities": [{"providerName": PROVIDER, "providerType": "SAML", "userId": "ada@example.com"}],
    }
    base.update(changes)
    return {name: value for name, value in base.items() if value is not None}


def signed(key: Any, payload: dict[str, Any], alg: str = "RS256", kid: str = "pool-key-1") -> str:
    return jwt.encode({"alg": alg, "kid": kid}, payload, key, algorithms=[alg])


def refusal(token: str, keys: SigningKeys) -> str:
    with pytest.raises(SsoRefused) as refused:
        verified_identity(token, keys, EXPECTED, NOW)
    assert refused.value.status == 401
    return str(refused.value)


def test_a_token_of_the_pools_key_names_the_person(pool_key, keys):
    identity = verified_identity(signed(pool_key, claims()), keys, EXPECTED, NOW)
    assert identity.email == "ada@example.com"
    assert identity.username == "entra_ada@example.com"
    assert identity.subject == "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab"
    assert identity.provider_user_id == "ada@example.com"


def test_a_token_signed_by_another_key_with_the_pools_key_id_is_refused(keys):
    impostor = RSAKey.generate_key(2048)
    assert "signature does not match" in refusal(signed(impostor, claims()), keys)


def test_a_token_of_a_key_the_pool_does_not_have_is_refused(keys):
    impostor = RSAKey.generate_key(2048)
    assert "a key the user pool does not have" in refusal(signed(impostor, claims(), kid="other"), keys)


def part(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def test_alg_none_is_refused(keys):
    token = f"{part({'alg': 'none', 'kid': 'pool-key-1'})}.{part(claims())}."
    assert "signed with 'none', and only RS256 is accepted" in refusal(token, keys)


def test_hs256_keyed_with_the_pools_public_key_is_refused(pool_key, keys):
    # Made by hand: joserfc itself refuses a public key as an HMAC secret.
    signing_input = f"{part({'alg': 'HS256', 'kid': 'pool-key-1'})}.{part(claims())}"
    mac = hmac.new(pool_key.as_pem(private=False), signing_input.encode(), hashlib.sha256).digest()
    token = f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    assert "signed with 'HS256'" in refusal(token, keys)


def test_an_expired_token_is_refused_beyond_the_leeway(pool_key, keys):
    assert "has expired" in refusal(signed(pool_key, claims(exp=int(NOW) - 61)), keys)
    # Within a minute of its expiry, clocks may differ: still accepted.
    verified_identity(signed(pool_key, claims(exp=int(NOW) - 30)), keys, EXPECTED, NOW)


def test_a_token_issued_in_the_future_is_refused(pool_key, keys):
    assert "issued in the future" in refusal(signed(pool_key, claims(iat=int(NOW) + 120)), keys)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"aud": "another-client"}, "issued to another app client"),
        ({"iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other"}, "issued by another user pool"),
        ({"token_use": "access"}, "not an ID token"),
        ({"nonce": "nonce-of-another-sign-in"}, "its nonce differs"),
        ({"nonce": None}, "its nonce differs"),
        ({"exp": None}, "has no exp"),
        ({"identities": None}, "did not sign in through Entra"),
        ({"identities": [{"providerName": "Okta", "userId": "x"}]}, "did not sign in through Entra"),
        ({"email": None}, "sent no email address"),
        ({"sub": None}, "has no sub"),
    ],
)
def test_each_wrong_claim_is_refused_by_name(pool_key, keys, changes, reason):
    assert reason in refusal(signed(pool_key, claims(**changes)), keys)


@pytest.mark.parametrize("token", ["", "not-a-token", "a.b", "a.b.c", "e30.e30.e30.e30", "x" * 20000])
def test_what_is_not_a_jwt_is_refused(keys, token):
    assert "could not be verified" in refusal(token, keys)


def test_a_key_id_not_in_the_kept_set_asks_for_a_fresh_read_once(pool_key):
    reads: list[bool] = []
    rotated = RSAKey.generate_key(2048, parameters={"kid": "pool-key-2"})

    def key_set(refresh: bool) -> dict[str, Any]:
        reads.append(refresh)
        keys = [pool_key, rotated] if refresh else [pool_key]  # the pool rotated since the first read
        return {"keys": [key.as_dict(private=False) for key in keys]}

    keys = SigningKeys(key_set)
    assert keys.key("pool-key-1") is not None
    assert reads == [False]  # the kept set holds it
    assert keys.key("pool-key-2") is not None
    assert reads == [False, False, True]  # not in the kept set: read afresh, once
    assert keys.key("made-up") is None
    assert reads == [False, False, True, False, True]  # the source limits how often that reads
