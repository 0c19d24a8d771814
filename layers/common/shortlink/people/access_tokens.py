"""The user pool's access tokens, as the API takes them from a person (`Authorization: Bearer
<JWT>`): what API Gateway's JWT authorizer checks deployed, checked here too (locally there is
no authorizer, and deployed it is one check more): the signature by a key of the pool's JWKS,
the issuer, the app client, `token_use` and the expiry. joserfc is imported on first use: only
functions that take tokens load it, never the redirect."""

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, cast

from shortlink.errors import ShortlinkError
from shortlink.people.activity import note_activity
from shortlink.people.actors import Actor
from shortlink.people.model import plausible_id
from shortlink.people.ports import Memberships, PersonSessions

ALGORITHMS = ["RS256"]  # what Cognito signs with
MAX_TOKEN_CHARS = 8192
LEEWAY_SECONDS = 30


class AccessTokenNotValid(ShortlinkError):
    """The token is no access token of this pool's app client (or has expired)."""


class KeySet(Protocol):
    def keys(self, refresh: bool = False) -> Mapping[str, Any]:
        """The pool's JWKS document (`refresh`: read again, for a key not seen yet)."""


@dataclass(frozen=True)
class TokenIssuer:
    """Whose tokens the API takes: the pool's issuer URL and its console's app client id."""

    issuer: str
    client_id: str


def looks_like_jwt(token: str) -> bool:
    """A JWS compact serialisation (three base64url parts), as no API key is (`sl_...`)."""
    return token.count(".") == 2 and token.startswith("eyJ")


@dataclass(frozen=True)
class TokenHolder:
    """Whom an access token names (`sub`), and when they signed in for it (`auth_time`, which
    the pool keeps in the tokens a refresh token mints later; `iat` where it is missing)."""

    subject: str
    signed_in_at: int


def access_token_holder(token: str, key_set: KeySet, issuer: TokenIssuer, now: datetime) -> TokenHolder:
    """The person an access token of the pool names, and when they signed in for it;
    AccessTokenNotValid otherwise."""
    from joserfc import jwt
    from joserfc.errors import JoseError
    from joserfc.jwk import KeySet as JoseKeySet

    if len(token) > MAX_TOKEN_CHARS or not looks_like_jwt(token):
        raise AccessTokenNotValid("not a token")
    try:
        kid = _header(token).get("kid")
        document = key_set.keys()
        if kid not in {key.get("kid") for key in document.get("keys", [])}:
            document = key_set.keys(refresh=True)  # the pool rotated its keys
        decoded = jwt.decode(token, JoseKeySet.import_key_set(cast(Any, document)), algorithms=ALGORITHMS)
        claims = jwt.JWTClaimsRegistry(
            now=int(now.timestamp()),
            leeway=LEEWAY_SECONDS,
            iss={"essential": True, "value": issuer.issuer},
            client_id={"essential": True, "value": issuer.client_id},
            token_use={"essential": True, "value": "access"},
            exp={"essential": True},
            iat={"essential": True},
            sub={"essential": True},
        )
        claims.validate(decoded.claims)
        signed_in_at = int(decoded.claims.get("auth_time") or decoded.claims["iat"])
    except (JoseError, ValueError, TypeError, binascii.Error) as error:
        raise AccessTokenNotValid(str(error)) from error
    return TokenHolder(str(decoded.claims["sub"]), signed_in_at)


def _header(token: str) -> dict[str, Any]:
    part = token.split(".")[0]
    header = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    if not isinstance(header, dict):
        raise ValueError("the token's header is no object")
    return header


class NoWorkspaceChosen(ShortlinkError):
    """A person called the API without naming a workspace they belong to."""


@dataclass(frozen=True)
class PersonAccess:
    """What the API needs to take a person's access token: whose tokens, the pool's keys, the
    memberships that give the person their role, and their Sign outs."""

    issuer: TokenIssuer
    key_set: KeySet
    memberships: Memberships
    sessions: PersonSessions


def person_of_token(token: str, access: PersonAccess, now: datetime) -> str:
    """The person an access token names, unless they signed out of the console since they signed
    in for it (one GetItem: the console's Sign out ends their tokens on the API too, and those a
    refresh token mints from that sign-in); AccessTokenNotValid otherwise."""
    holder = access_token_holder(token, access.key_set, access.issuer, now)
    if holder.signed_in_at <= access.sessions.signed_out_at(holder.subject):
        raise AccessTokenNotValid("the person signed out after this token's sign-in")
    return holder.subject


def actor_of_token(
    token: str, workspace_id: str | None, access: PersonAccess, now: datetime, *, fresh: bool = False
) -> Actor:
    """The person an access token names, acting in `workspace_id` with their role's scopes (one
    GetItem: a request names its workspace, never makes us look for it; `fresh` for a write).
    AccessTokenNotValid for a bad token; NoWorkspaceChosen if no workspace is named or it is not
    one of theirs."""
    subject = person_of_token(token, access, now)
    membership = None
    if workspace_id is not None and plausible_id(workspace_id):
        membership = access.memberships.membership_in(workspace_id, subject, fresh=fresh)
    if membership is None:
        raise NoWorkspaceChosen(subject)
    note_activity(access.memberships, membership, now)
    return Actor.of_member(membership)
