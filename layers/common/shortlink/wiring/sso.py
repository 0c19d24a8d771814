"""Single sign-on set up by owners in the console: the set-ups (in the API keys table, home
region), the user pool's identity providers and the console's client, and the guarded fetch of
the providers' documents."""

from typing import TYPE_CHECKING

from shortlink.errors import ConfigurationError
from shortlink.wiring.environment import people_settings, regions, resources, sso_settings
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.cognito.identity_providers import CognitoIdentityProviders
    from shortlink.adapters.dynamodb.sso_setups import DynamoSsoSetups
    from shortlink.adapters.http.provider_documents import GuardedProviderDocuments


@factory
def sso_setups() -> "DynamoSsoSetups":
    """Workspaces' single sign-on set-ups and the email domains they hold."""
    from shortlink.adapters.dynamodb.sso_setups import DynamoSsoSetups

    return DynamoSsoSetups(resources().api_keys_table.value, regions().home_region_name)


@factory
def identity_providers() -> "CognitoIdentityProviders":
    """The pool's identity providers, listed on the console's SSO client."""
    from shortlink.adapters.cognito.identity_providers import CognitoIdentityProviders

    pool, config = people_settings(), sso_settings()
    if not (pool.user_pool_id and config.managed_login):
        raise ConfigurationError("PEOPLE_USER_POOL_ID and SSO_CLIENT_ID are not set")
    return CognitoIdentityProviders(pool.user_pool_id, config.client_id)


@factory
def provider_documents() -> "GuardedProviderDocuments":
    """Identity providers' discovery documents and metadata, fetched as webhooks are sent."""
    from shortlink.adapters.http.provider_documents import GuardedProviderDocuments

    return GuardedProviderDocuments(allow_loopback=sso_settings().documents_allow_loopback)
