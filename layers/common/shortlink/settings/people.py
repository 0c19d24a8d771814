"""Where people sign in: the Cognito user pool and its console app client (none: the console
takes API keys only, and the API no access tokens)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Self

from shortlink.errors import ConfigurationError

# The password policy of the pool people.yaml makes (PasswordMinimumLength's default and its
# Require* flags; a test holds them together), shown before an invited person chooses one.
POOL_PASSWORD_RULE = "at least 12 characters, with a lower-case letter, an upper-case letter and a digit"  # noqa: S105  # a rule, not a password


@dataclass(frozen=True)
class PeopleSettings:
    user_pool_id: str
    client_id: str
    issuer: str  # the `iss` of the pool's tokens
    jwks_url: str  # where its signing keys are (locally: the embedded endpoint's)
    invitations_from: str = ""  # the SES address invitations are sent from; empty: none sent
    sign_in_attempts_per_account: int = 10  # per email and 15 minutes, beside the per-address limit
    print_invitations: bool = False  # `make dev`: invitations printed to the local stack's output
    passkey_relying_party: str = ""  # the console's domain where the pool offers passkeys; empty: none
    pool_sends_invitations: bool = False  # the stack's own pool: Cognito emails invitations (people.yaml)

    @property
    def enabled(self) -> bool:
        return bool(self.user_pool_id and self.client_id)

    @property
    def passkeys(self) -> bool:
        return self.enabled and bool(self.passkey_relying_party)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Self:
        pool = env.get("PEOPLE_USER_POOL_ID", "")
        region = pool.partition("_")[0] or env.get("AWS_REGION", "")
        issuer = env.get("PEOPLE_TOKEN_ISSUER") or (
            f"https://cognito-idp.{region}.amazonaws.com/{pool}" if pool else ""
        )
        jwks = env.get("PEOPLE_JWKS_URL") or (f"{issuer}/.well-known/jwks.json" if issuer else "")
        attempts = env.get("PEOPLE_SIGN_IN_ATTEMPTS_PER_ACCOUNT", "") or "10"
        if not (attempts.isascii() and attempts.isdigit()) or int(attempts) < 1:
            raise ConfigurationError("PEOPLE_SIGN_IN_ATTEMPTS_PER_ACCOUNT: a whole number of at least 1")
        printed = env.get("PEOPLE_PRINT_INVITATIONS", "") == "true"
        sender = env.get("PEOPLE_INVITATIONS_FROM", "")
        relying_party = env.get("PEOPLE_PASSKEY_RELYING_PARTY", "")
        by_pool = env.get("PEOPLE_POOL_SENDS_INVITATIONS", "") == "true"
        client = env.get("PEOPLE_CLIENT_ID", "")
        return cls(pool, client, issuer, jwks, sender, int(attempts), printed, relying_party, by_pool)
