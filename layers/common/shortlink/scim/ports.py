"""The stores provisioning needs (adapters/dynamodb/scim_store.py implements them)."""

from typing import Protocol

from shortlink.scim.model import ProvisionedGroup, ProvisionedUser


class ProvisionedUsers(Protocol):
    def add(self, user: ProvisionedUser) -> bool:
        """Store a new user; False if the workspace has a user of that user_name already."""

    def replace(self, before: ProvisionedUser, after: ProvisionedUser) -> bool:
        """Store `after` over `before`; False if `after` takes a user_name another user holds."""

    def get(self, workspace_id: str, scim_id: str) -> ProvisionedUser | None:
        """The workspace's user of this id, or None."""

    def of_workspace(self, workspace_id: str) -> list[ProvisionedUser]:
        """The workspace's users, oldest first."""

    def delete(self, user: ProvisionedUser) -> None:
        """Forget the user (and free its user_name)."""


class ProvisionedGroups(Protocol):
    def put(self, group: ProvisionedGroup) -> None:
        """Store the group (new, or over its earlier version)."""

    def get(self, workspace_id: str, scim_id: str) -> ProvisionedGroup | None:
        """The workspace's group of this id, or None."""

    def of_workspace(self, workspace_id: str) -> list[ProvisionedGroup]:
        """The workspace's groups, oldest first."""

    def delete(self, group: ProvisionedGroup) -> None:
        """Forget the group."""
