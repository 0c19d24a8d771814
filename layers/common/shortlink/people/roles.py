"""What each role may do, as the scopes API keys carry (shortlink.access.api_keys): a member's
request is checked by the same scope checks as a key's, from this one table.

Owners alone hold OWNERSHIP: no key carries it, so only an owner can make or remove an owner
(a member grants only roles whose scopes they hold themselves, as a key grants only its own)."""

from collections.abc import Mapping

from shortlink.access.api_keys import ADMIN, LINKS_READ, LINKS_WRITE, MEMBERS_READ, MEMBERS_WRITE, STATS_READ
from shortlink.people.errors import RoleNotGrantable
from shortlink.people.model import Role

OWNERSHIP = "workspace:owner"  # makes and removes owners, renames the workspace; never a key's
MANAGING = frozenset({ADMIN, MEMBERS_READ, MEMBERS_WRITE})

ROLE_SCOPES: Mapping[Role, frozenset[str]] = {
    "owner": frozenset({LINKS_READ, LINKS_WRITE, STATS_READ, *MANAGING, OWNERSHIP}),
    "admin": frozenset({LINKS_READ, LINKS_WRITE, STATS_READ, *MANAGING}),
    "editor": frozenset({LINKS_READ, LINKS_WRITE, STATS_READ}),
    "viewer": frozenset({LINKS_READ, STATS_READ}),
}

ROLE_MEANINGS: Mapping[Role, str] = {
    "owner": "everything, including making and removing owners",
    "admin": "everything but owners: members, API keys, webhooks, links and stats",
    "editor": "create, edit and delete links; read stats",
    "viewer": "read links and stats",
}


def scopes_of(role: Role) -> frozenset[str]:
    """The scopes a member of `role` holds."""
    return ROLE_SCOPES[role]


def may_manage(manager_scopes: frozenset[str], role: Role) -> bool:
    """Whether someone holding `manager_scopes` may invite, add or remove a member of `role`:
    members are managed with MEMBERS_WRITE, and only a role whose scopes the manager holds all of."""
    return MEMBERS_WRITE in manager_scopes and scopes_of(role) <= manager_scopes


def require_manage(manager_scopes: frozenset[str], role: Role) -> None:
    """RoleNotGrantable, naming the first scope the manager lacks, unless they may manage `role`."""
    lacking = sorted(({MEMBERS_WRITE} | scopes_of(role)) - manager_scopes)
    if lacking:
        raise RoleNotGrantable(role, lacking[0])
