"""The user pool's identity providers that owners set up in the console (botocore's cognito-idp):
made or updated with their details and email mapping, and listed on the console's SSO app client
(SupportedIdentityProviders) beside the providers it has already.

UpdateUserPoolClient sets every field it is given and resets the others to their defaults, so a
change of the list is a read-modify-write that carries over every field the update takes (read
from botocore's model of the operation, so a field Cognito adds later is carried too), and is read
back: two saves at once can each drop the other's name, and the one that finds its change lost
writes it again."""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.errors import StorageUnavailable
from shortlink.sso.provider_setup import Protocol, SsoSetupInvalid

LIST_ATTEMPTS = 3
# Details a provider keeps when a save leaves them out: the OIDC secret ("leave empty to keep")
# and a SAML provider's metadata (the same protocol saved again without a new document).
KEPT_DETAILS = {"OIDC": ("client_secret",), "SAML": ("MetadataURL", "MetadataFile")}


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class CognitoIdentityProviders:
    def __init__(self, user_pool_id: str, client_id: str) -> None:
        self._pool = user_pool_id
        self._client_id = client_id
        self._client = botocore_client("cognito-idp", region_name=user_pool_id.partition("_")[0] or None)

    def _call(self, operation: str, **parameters: Any) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = getattr(self._client, operation)(UserPoolId=self._pool, **parameters)
        except ClientError as error:
            code = _code(error)
            message = str(error.response.get("Error", {}).get("Message") or code)[:300]
            if code == "InvalidParameterException":  # e.g. Cognito could not read the metadata or the issuer
                raise SsoSetupInvalid({"protocol": f"the user pool refused the provider: {message}"}) from error
            if code == "LimitExceededException":
                raise SsoSetupInvalid({"protocol": f"the user pool takes no more providers: {message}"}, 409) from error
            raise StorageUnavailable(f"user pool: {code or error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"user pool: {error}") from error
        return answer

    def _existing(self, name: str) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = self._client.describe_identity_provider(UserPoolId=self._pool, ProviderName=name)
        except ClientError as error:
            if _code(error) == "ResourceNotFoundException":
                return None
            raise StorageUnavailable(f"user pool: {_code(error) or error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"user pool: {error}") from error
        return dict(found["IdentityProvider"])

    def put(self, name: str, protocol: Protocol, details: dict[str, str], email_attribute: str) -> bool:
        existing = self._existing(name)
        mapping = {"email": email_attribute}
        if existing is not None and existing.get("ProviderType") == protocol:
            kept = dict(existing.get("ProviderDetails") or {})
            carried = {key: kept[key] for key in KEPT_DETAILS[protocol] if key in kept}
            if protocol == "SAML" and details:  # a new URL or document replaces both ways of giving one
                carried = {}
            self._call(
                "update_identity_provider",
                ProviderName=name,
                ProviderDetails={**carried, **details},
                AttributeMapping=mapping,
            )
            return False
        if existing is not None:  # another protocol: Cognito changes no provider's type
            self._call("delete_identity_provider", ProviderName=name)
        self._call(
            "create_identity_provider",
            ProviderName=name,
            ProviderType=protocol,
            ProviderDetails=details,
            AttributeMapping=mapping,
        )
        return True

    def remove(self, name: str) -> None:
        if self._existing(name) is not None:
            self._call("delete_identity_provider", ProviderName=name)

    def _providers(self) -> tuple[dict[str, Any], list[str]]:
        client = dict(self._call("describe_user_pool_client", ClientId=self._client_id)["UserPoolClient"])
        return client, list(client.get("SupportedIdentityProviders") or [])

    def _listed(self, name: str, listed: bool) -> None:
        accepted = self._client.meta.service_model.operation_model("UpdateUserPoolClient").input_shape.members
        for _ in range(LIST_ATTEMPTS):
            client, providers = self._providers()
            if (name in providers) == listed:
                return
            changed = [*providers, name] if listed else [each for each in providers if each != name]
            carried = {key: value for key, value in client.items() if key in accepted and key != "UserPoolId"}
            self._call("update_user_pool_client", **{**carried, "SupportedIdentityProviders": changed})
        raise StorageUnavailable(f"user pool: the console's client kept changing while {name} was listed")

    def allow(self, name: str) -> None:
        self._listed(name, True)

    def disallow(self, name: str) -> None:
        self._listed(name, False)
