"""People and their keys: API keys, workspaces' members, names and invitations (all in the API
keys table), the user pool and the access tokens it signs."""

from typing import TYPE_CHECKING

from shortlink.errors import ConfigurationError
from shortlink.wiring.environment import people_settings, regions, resources
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.cognito.user_pool import CognitoUserPool
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
    from shortlink.adapters.dynamodb.memberships import DynamoInvitations, DynamoMemberships, DynamoPersonSessions
    from shortlink.adapters.dynamodb.recovery_codes import DynamoRecoveryCodes
    from shortlink.adapters.dynamodb.workspace_names import DynamoWorkspaceNames
    from shortlink.adapters.http.jwks import CachedJwks
    from shortlink.commands.team import TeamStores
    from shortlink.people.access_tokens import PersonAccess
    from shortlink.people.ports import InvitationMessages


@factory
def api_key_store() -> "DynamoApiKeyStore":
    """API keys, written at home and read in this region."""
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore

    deployment = regions()
    return DynamoApiKeyStore(resources().api_keys_table.value, deployment.home_region_name, deployment.region_name)


@factory
def memberships() -> "DynamoMemberships":
    """Workspaces' members, beside the keys in the API keys table (adapters/dynamodb/memberships.py)."""
    from shortlink.adapters.dynamodb.memberships import DynamoMemberships

    deployment = regions()
    return DynamoMemberships(resources().api_keys_table.value, deployment.home_region_name, deployment.region_name)


@factory
def person_sessions() -> "DynamoPersonSessions":
    """People's console sessions, in the home region's table."""
    from shortlink.adapters.dynamodb.memberships import DynamoPersonSessions

    return DynamoPersonSessions(resources().api_keys_table.value, regions().home_region_name)


@factory
def recovery_codes() -> "DynamoRecoveryCodes":
    """People's recovery codes, in the home region's table (a code spent once is spent everywhere)."""
    from shortlink.adapters.dynamodb.recovery_codes import DynamoRecoveryCodes

    return DynamoRecoveryCodes(resources().api_keys_table.value, regions().home_region_name)


@factory
def workspace_names() -> "DynamoWorkspaceNames":
    """Workspaces' names, beside their members in the API keys table (adapters/dynamodb/workspace_names.py)."""
    from shortlink.adapters.dynamodb.workspace_names import DynamoWorkspaceNames

    deployment = regions()
    return DynamoWorkspaceNames(resources().api_keys_table.value, deployment.home_region_name, deployment.region_name)


@factory
def invitations() -> "DynamoInvitations":
    """Open invitations to workspaces, in the home region's table."""
    from shortlink.adapters.dynamodb.memberships import DynamoInvitations

    return DynamoInvitations(resources().api_keys_table.value, regions().home_region_name)


@factory
def user_pool() -> "CognitoUserPool":
    """The people's Cognito user pool: ConfigurationError where none is configured."""
    from shortlink.adapters.cognito.user_pool import CognitoUserPool

    config = people_settings()
    if not config.enabled:
        raise ConfigurationError("PEOPLE_USER_POOL_ID and PEOPLE_CLIENT_ID are not set")
    return CognitoUserPool(config.user_pool_id, config.client_id)


@factory
def invitation_messages() -> "tuple[InvitationMessages, ...]":
    """The ways invitations are sent, tried in turn until one reaches the person: printed
    (`make dev`); else Cognito's email (the stack's own pool, whose trigger writes it), then SES
    from the configured address. None left: the inviter is shown the link to pass on."""
    from shortlink.adapters.cognito.invitation_accounts import CognitoInvitationMessages
    from shortlink.adapters.cognito.invitation_messages import PrintedInvitationMessages, SesInvitationMessages

    config = people_settings()
    if config.print_invitations:
        return (PrintedInvitationMessages(),)
    ways: list[InvitationMessages] = []
    if config.pool_sends_invitations and config.enabled:
        ways.append(CognitoInvitationMessages(config.user_pool_id, workspace_names()))
    if config.invitations_from:
        ways.append(SesInvitationMessages(config.invitations_from))
    return tuple(ways)


def team_stores() -> "TeamStores":
    """What the team commands (shortlink.commands.team) read and write, for the console and the API."""
    from shortlink.commands.team import TeamStores

    return TeamStores(memberships(), invitations(), api_key_store(), workspace_names(), invitation_messages())


def person_access() -> "PersonAccess | None":
    """What the API takes people's access tokens with; None where no user pool is configured."""
    from shortlink.people.access_tokens import PersonAccess, TokenIssuer

    config = people_settings()
    if not config.enabled:
        return None
    return PersonAccess(TokenIssuer(config.issuer, config.client_id), pool_keys(), memberships(), person_sessions())


@factory
def pool_keys() -> "CachedJwks":
    """The user pool's signing keys, read on the first access token and kept (read again for a
    key not seen yet)."""
    from shortlink.adapters.http.jwks import CachedJwks

    return CachedJwks(people_settings().jwks_url)
