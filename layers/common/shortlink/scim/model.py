"""What the identity provider provisions: users (a person by their sign-in address) and groups
(whose names map to roles), as SCIM resources of one workspace."""

from dataclasses import dataclass, field
from datetime import datetime

from shortlink.people.model import Role

# What a group's name grants, by its last word ("Shortlink Editors" → editor). Never owner: owners
# are made in the console by an owner, and no identity provider group can make or unmake one.
GROUP_ROLES: dict[str, Role] = {"admin": "admin", "editor": "editor", "viewer": "viewer"}
DEFAULT_ROLE: Role = "viewer"  # a provisioned person in no group that names a role
ROLE_ORDER: tuple[Role, ...] = ("admin", "editor", "viewer")  # the first one held wins


@dataclass(frozen=True)
class ProvisionedUser:
    scim_id: str
    workspace_id: str
    user_name: str  # the sign-in address, lower case: how a member is found
    created_at: datetime
    modified_at: datetime
    active: bool = True
    external_id: str = ""
    display_name: str = ""
    given_name: str = ""
    family_name: str = ""
    # The people's subjects a deactivation removed, so that a reactivation lets them back in.
    removed_subjects: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProvisionedGroup:
    scim_id: str
    workspace_id: str
    display_name: str
    created_at: datetime
    modified_at: datetime
    external_id: str = ""
    members: frozenset[str] = field(default_factory=frozenset)  # users' scim ids


def role_of_group(display_name: str) -> Role | None:
    """The role a group's name grants (its last word, singular, any case), or None."""
    words = display_name.strip().lower().replace("-", " ").replace("_", " ").split()
    last = words[-1].removesuffix("s") if words else ""
    return GROUP_ROLES.get(last)


def role_from_groups(user_id: str, groups: list[ProvisionedGroup]) -> Role:
    """The role a user's groups grant: the most powerful one, else DEFAULT_ROLE."""
    held = {role for group in groups if user_id in group.members and (role := role_of_group(group.display_name))}
    return next((role for role in ROLE_ORDER if role in held), DEFAULT_ROLE)
