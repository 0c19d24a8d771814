"""What an API key may do now: the scopes it holds, capped by the role its maker holds today in
the key's workspace. A key outlives nobody: its maker removed, or gone from the workspace, it
works no more; its maker downgraded, it does only what the new role allows. Checked at each use
(one GetItem of the maker's membership), so the same holds for every key a key made, which acts
for the same person."""

from shortlink.access.api_keys import ApiKey
from shortlink.people.actors import Actor
from shortlink.people.ports import Memberships
from shortlink.people.roles import scopes_of


def key_actor(key: ApiKey, memberships: Memberships | None, *, fresh: bool = False) -> Actor | None:
    """The actor `key` is, its scopes capped by its maker's role; None if it acts for a person
    who is no member of its workspace (removed, or left), or whose membership cannot be asked
    (`memberships` None: a deployment without people). A key of nobody keeps its own scopes.
    `fresh` (before a write): the maker's membership as the home region has it, so a downgrade
    that has returned caps the key in every region at once."""
    if not key.maker:
        return Actor.of_key(key)
    membership = memberships.membership_in(key.owner, key.maker, fresh=fresh) if memberships is not None else None
    if membership is None:
        return None
    return Actor.of_key(key, key.scopes & scopes_of(membership.role))
