"""SCIM provisioning: its tokens, users and groups (all in the API keys table, home region)."""

from typing import TYPE_CHECKING

from shortlink.wiring.environment import regions, resources
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.scim_store import DynamoProvisionedGroups, DynamoProvisionedUsers, DynamoScimTokens


@factory
def scim_tokens() -> "DynamoScimTokens":
    """Workspaces' SCIM tokens, by hash."""
    from shortlink.adapters.dynamodb.scim_store import DynamoScimTokens

    return DynamoScimTokens(resources().api_keys_table.value, regions().home_region_name)


@factory
def provisioned_users() -> "DynamoProvisionedUsers":
    """The users identity providers provisioned."""
    from shortlink.adapters.dynamodb.scim_store import DynamoProvisionedUsers

    return DynamoProvisionedUsers(resources().api_keys_table.value, regions().home_region_name)


@factory
def provisioned_groups() -> "DynamoProvisionedGroups":
    """The groups identity providers provisioned (their names map to roles)."""
    from shortlink.adapters.dynamodb.scim_store import DynamoProvisionedGroups

    return DynamoProvisionedGroups(resources().api_keys_table.value, regions().home_region_name)
