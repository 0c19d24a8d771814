"""The user pool's access tokens as the API checks them (shortlink.people.access_tokens): tokens
signed here by a test key of a JWKS, each claim the check reads varied in turn."""

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from shortlink.people.access_tokens import (
    AccessTokenNotValid,
    NoWorkspaceChosen,
    PersonAccess,
    TokenIssuer,
    access_token_holder,
    actor_of_token,
    looks_like_jwt,
    person_of_token,
)
from shortlink.people.members import join_on_first_sign_in
from shortlink.people.model import Person
from tests.fakes import InMemoryMemberships, InMemoryPersonSessions

ISSUER = TokenIssuer("https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test", "console-client")
POOL_KEY = RSAKey.generate_key(2048, parameters={"kid": "pool-1"})
OTHER_KEY = RSAKey.generate_key(2048, parameters={"kid": "pool-1"})  # same kid, not the pool's
NOW = datetime.now(UTC).replace(microsecond=0)


class PoolKeys:
    """The pool's JWKS; `rotated` holds keys only a refresh finds."""

    def __init__(self, *rotated: RSAKey) -> None:
        self.current = [POOL_KEY]
        self.rotated = list(rotated)
        self.reads = 0

    def keys(self, refresh: bool = False) -> Mapping[str, Any]:
        self.reads += 1
        if refresh:
            self.current += self.rotated
        return {"keys": [key.as_dict(private=False) for key in self.current]}


def token(key: RSAKey = POOL_KEY, **changes: Any) -> str:
    claims = {
        "sub": "sub-ann",
        "iss": ISSUER.issuer,
        "client_id": ISSUER.client_id,
        "token_use": "access",
        "exp": int(NOW.timestamp()) + 3600,
        "iat": int(NOW.timestamp()),
        **changes,
    }
    claims = {name: value for name, value in claims.items() if value is not None}
    return jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)


def subject_of(made: str, keys: PoolKeys) -> str:
    return access_token_holder(made, keys, ISSUER, NOW).subject


def test_an_access_token_of_the_pool_names_its_person():
    assert subject_of(token(), PoolKeys()) == "sub-ann"


@pytest.mark.parametrize(
    "made",
    [
        lambda: token(iss="https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other"),
        lambda: token(client_id="another-client"),
        lambda: token(token_use="id"),
        lambda: token(token_use=None, aud=ISSUER.client_id),  # an ID token's shape
        lambda: token(exp=int((NOW - timedelta(minutes=5)).timestamp())),
        lambda: token(exp=None),
        lambda: token(sub=None),
        lambda: token(iat=None),
        lambda: token(OTHER_KEY),  # signed by someone else under the pool's kid
        lambda: token()[:-6] + "AAAAAA",
        lambda: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
        lambda: "eyJ" + "A" * 9000 + ".a.b",
    ],
)
def test_anything_else_is_refused(made):
    with pytest.raises(AccessTokenNotValid):
        subject_of(made(), PoolKeys())


def test_a_key_the_pool_rotated_in_is_found_by_reading_the_keys_again():
    new_key = RSAKey.generate_key(2048, parameters={"kid": "pool-2"})
    keys = PoolKeys(new_key)
    assert subject_of(token(new_key), keys) == "sub-ann"
    assert keys.reads == 2


def test_an_api_key_is_no_jwt():
    assert not looks_like_jwt("sl_" + "a" * 32)
    assert looks_like_jwt(token())


def test_a_token_acts_in_the_workspace_it_names_with_its_role_there_only():
    memberships = InMemoryMemberships()
    join_on_first_sign_in(memberships, Person("sub-ann", "ann@example.com"), "ws1", "editor", NOW)
    access = PersonAccess(ISSUER, PoolKeys(), memberships, InMemoryPersonSessions())
    actor = actor_of_token(token(), "ws1", access, NOW)
    assert (actor.kind, actor.id, actor.workspace_id, actor.role) == ("person", "sub-ann", "ws1", "editor")
    for workspace in (None, "", "ws2", "w" * 5000, "ws1\n"):
        with pytest.raises(NoWorkspaceChosen):
            actor_of_token(token(), workspace, access, NOW)


def test_a_sign_out_ends_the_tokens_of_every_sign_in_before_it_refreshed_ones_included():
    sessions = InMemoryPersonSessions()
    access = PersonAccess(ISSUER, PoolKeys(), InMemoryMemberships(), sessions)
    signed_in = int(NOW.timestamp()) - 600
    before = token(auth_time=signed_in, iat=signed_in)
    refreshed = token(auth_time=signed_in, iat=int(NOW.timestamp()))  # minted later by a refresh token
    assert person_of_token(before, access, NOW) == person_of_token(refreshed, access, NOW) == "sub-ann"
    sessions.end_sessions("sub-ann", NOW - timedelta(minutes=5))
    for ended in (before, refreshed, token(auth_time=int(NOW.timestamp()) - 300)):  # the same second too
        with pytest.raises(AccessTokenNotValid, match="signed out"):
            person_of_token(ended, access, NOW)
    # A sign-in after it works, and someone else's sign out ends nothing of Ann's
    assert person_of_token(token(auth_time=int(NOW.timestamp()) - 299), access, NOW) == "sub-ann"
    sessions.end_sessions("sub-bob", NOW)
    assert person_of_token(token(auth_time=int(NOW.timestamp()) - 299), access, NOW) == "sub-ann"
