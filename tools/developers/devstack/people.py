"""The user pool of the local stack: made on the embedded moto from people.yaml's resources (the
template stays their one definition), with a first owner of the dev key's workspace. A stack of
several regions makes one pool for all of them, as deployed, and tells each region's functions
(SHARED_POOL_VARIABLE).

moto checks TOTP codes only with MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP=true (set here, before
it serves), and then against one secret it gives every person; it does not send email. Its
passkeys are tools.developers.devstack.passkeys' (moto has none): people.yaml's passkey settings taken, the
console's domain is localhost (a secure context to browsers, as 127.0.0.1 is no relying party)."""

import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tools.developers.devstack.template import LocalTemplate

# botocore's variable for Cognito's endpoint (its service id, "Cognito Identity Provider").
COGNITO_ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"
POOL_TYPE = "AWS::Cognito::UserPool"
CLIENT_TYPE = "AWS::Cognito::UserPoolClient"
LOCAL_POOL_NAME = "shortlink-people"
# CloudFormation properties of a pool that CreateUserPool does not take under that name.
POOL_NOT_API = {"UserPoolName", "DeletionProtection", "UserPoolAddOns", "Metadata", "EnabledMfas"}
CLIENT_NOT_API = {"UserPoolId", "Metadata"}
# CloudFormation's passkey properties of a pool: the API sets them with SetUserPoolMfaConfig.
PASSKEY_PROPERTIES = {"WebAuthnRelyingPartyID", "WebAuthnUserVerification"}
PASSKEYS_CONDITION = "Passkeys"
# The pool a stack of several regions made for every region (JSON: its id, client, relying party).
SHARED_POOL_VARIABLE = "SHORTLINK_SHARED_USER_POOL"
LOCAL_RELYING_PARTY = "localhost"
DEV_OWNER_EMAIL = "owner@example.com"


@dataclass(frozen=True)
class LocalPool:
    user_pool_id: str
    client_id: str
    endpoint: str
    passkey_relying_party: str = ""  # empty: the pool's endpoint keeps no WebAuthn configuration

    def environment(self) -> dict[str, str]:
        """What the functions are told: the pool, its client, and where its keys are served."""
        return {
            "PEOPLE_USER_POOL_ID": self.user_pool_id,
            "PEOPLE_CLIENT_ID": self.client_id,
            "PEOPLE_JWKS_URL": f"{self.endpoint}/{self.user_pool_id}/.well-known/jwks.json",
            "PEOPLE_PRINT_INVITATIONS": "true",
            "PEOPLE_PASSKEY_RELYING_PARTY": self.passkey_relying_party,
        }

    def shared(self) -> dict[str, str]:
        """What a stack of several regions tells each region's process: use this pool."""
        return {SHARED_POOL_VARIABLE: json.dumps([self.user_pool_id, self.client_id, self.passkey_relying_party])}


def shared_pool(endpoint: str) -> LocalPool | None:
    """The pool a stack of several regions made for this region too; None: this stack makes its own."""
    given = os.environ.get(SHARED_POOL_VARIABLE)
    if not given:
        return None
    pool_id, client_id, relying_party = json.loads(given)
    return LocalPool(pool_id, client_id, endpoint, relying_party)


def check_totp_codes() -> None:
    """Before moto serves: its Cognito checks TOTP codes (it takes any without this)."""
    os.environ["MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP"] = "true"


def with_passkeys(value: Any) -> Any:
    """people.yaml's properties as deployed with a passkey domain, localhost: `!If [Passkeys,
    on, off]` takes `on`, `!Ref PasskeyDomain` is localhost, `!Ref AWS::NoValue` is left out."""
    if isinstance(value, list):
        return [each for each in (with_passkeys(item) for item in value) if each is not None]
    if not isinstance(value, dict):
        return value
    if value.get("Ref") == "AWS::NoValue":
        return None
    if value.get("Ref") == "PasskeyDomain":
        return LOCAL_RELYING_PARTY
    if "Fn::If" in value and value["Fn::If"][0] == PASSKEYS_CONDITION:
        return with_passkeys(value["Fn::If"][1])
    return {key: each for key, each in ((key, with_passkeys(item)) for key, item in value.items()) if each is not None}


def create_user_pool(template: LocalTemplate, cognito: Any, endpoint: str) -> LocalPool:
    """The people stack's user pool and the console's app client (people.yaml), on `endpoint`
    (single sign-on's client, sso.yaml's, is the stand-in managed login's business), with
    passkeys where the endpoint keeps a WebAuthn configuration (the embedded moto, taught them)."""
    (pool,) = (with_passkeys(each) for each in template.resources(POOL_TYPE).values())
    client = with_passkeys(template.resources(CLIENT_TYPE)["ConsoleClient"])
    request = {key: value for key, value in pool.items() if key not in POOL_NOT_API | PASSKEY_PROPERTIES}
    pool_id = cognito.create_user_pool(PoolName=LOCAL_POOL_NAME, **request)["UserPool"]["Id"]
    passkeys = (
        {"WebAuthnConfiguration": {"RelyingPartyId": LOCAL_RELYING_PARTY, "UserVerification": verification}}
        if (verification := pool.get("WebAuthnUserVerification"))
        else {}
    )
    if "SOFTWARE_TOKEN_MFA" in pool.get("EnabledMfas", []):
        cognito.set_user_pool_mfa_config(
            UserPoolId=pool_id,
            SoftwareTokenMfaConfiguration={"Enabled": True},
            MfaConfiguration=pool["MfaConfiguration"],
            **passkeys,
        )
    configured = cognito.get_user_pool_mfa_config(UserPoolId=pool_id).get("WebAuthnConfiguration", {})
    client_request = {key: value for key, value in client.items() if key not in CLIENT_NOT_API}
    client_id = cognito.create_user_pool_client(UserPoolId=pool_id, **client_request)["UserPoolClient"]["ClientId"]
    return LocalPool(pool_id, client_id, endpoint, str(configured.get("RelyingPartyId", "")))


def workspace_of(table: str, plaintext: str, region: str | None = None) -> str:
    """The workspace (account) of a stored key (in `region`'s table, else the environment's)."""
    from shortlink.access.api_keys import hash_api_key
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore

    key = DynamoApiKeyStore(table, region, region).find_by_hash(hash_api_key(plaintext))
    assert key is not None, "the dev key was just stored"
    return key.owner


def first_owner_line(sign_in_url: str, email: str, password: str) -> str:
    """The banner's line that tells how the first owner signs in to the console."""
    return f"  Console:   {sign_in_url} as {email} / {password} (owner of the key's workspace)\n"


def dev_password() -> str:
    """A password the pool's policy takes (upper, lower case and digits, 20+ characters)."""
    return f"Dev-{secrets.token_urlsafe(12)}-a1A"


def ensure_first_owner(
    pool: LocalPool, cognito: Any, keys_table: str, workspace_id: str, email: str, region: str | None = None
) -> str:
    """A person of the pool (`email`, a new password) and owner of `workspace_id` (in `region`'s
    table, else the environment's); the password."""
    from shortlink.adapters.dynamodb.memberships import DynamoMemberships
    from shortlink.people.members import join_on_first_sign_in
    from shortlink.people.model import Person

    password = dev_password()
    cognito.admin_create_user(
        UserPoolId=pool.user_pool_id,
        Username=email,
        UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
        MessageAction="SUPPRESS",
    )
    cognito.admin_set_user_password(UserPoolId=pool.user_pool_id, Username=email, Password=password, Permanent=True)
    user = cognito.admin_get_user(UserPoolId=pool.user_pool_id, Username=email)
    subject = next(each["Value"] for each in user["UserAttributes"] if each["Name"] == "sub")
    join_on_first_sign_in(
        DynamoMemberships(keys_table, region, region),
        Person(subject, email),
        workspace_id,
        "owner",
        datetime.now(UTC),
        "make dev",
    )
    return password
