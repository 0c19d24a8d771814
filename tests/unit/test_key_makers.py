"""Keys act for the person who made them (shortlink.people.key_access, shortlink.people.offboarding):
a key records its maker and passes them on to the keys it makes; the maker's role today caps
every one of them at each use; a removal or a departure ends them all, and nobody else's."""

from datetime import UTC, datetime

import pytest

from shortlink.access.api_keys import ADMIN, ALL_SCOPES, LINKS_READ, LINKS_WRITE, STATS_READ, issue_account_key
from shortlink.errors import ScopeNotGrantable
from shortlink.people.actors import Actor
from shortlink.people.errors import LastOwner, MemberNotFound
from shortlink.people.key_access import key_actor
from shortlink.people.members import change_role, join_on_first_sign_in
from shortlink.people.model import ROLES, Person
from shortlink.people.offboarding import leave, remove_with_keys
from shortlink.people.roles import scopes_of
from tests.fakes import InMemoryApiKeys, InMemoryMemberships

NOW = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)
OWNER = Person("sub-owner", "owner@example.com")
ADA = Person("sub-ada", "ada@example.com")


def workspace_with(ada_role: str) -> tuple[InMemoryMemberships, InMemoryApiKeys]:
    memberships = InMemoryMemberships()
    join_on_first_sign_in(memberships, OWNER, "ws1", "owner", NOW)
    join_on_first_sign_in(memberships, ADA, "ws1", ada_role, NOW)  # type: ignore[arg-type]
    return memberships, InMemoryApiKeys()


def keys_of_ada(memberships: InMemoryMemberships, keys: InMemoryApiKeys) -> tuple[Actor, Actor]:
    """A key Ada made in ws1 (all she can grant) and the key that key made, as actors."""
    ada = Actor.of_member(memberships.items[("ws1", ADA.subject)])
    key, _ = issue_account_key(keys, ada, "ada's", ALL_SCOPES & ada.scopes, None, NOW)
    parent = key_actor(key, memberships)
    assert parent is not None
    child, _ = issue_account_key(keys, parent, "child", frozenset({ADMIN, LINKS_READ}), None, NOW)
    made = key_actor(child, memberships)
    assert made is not None
    return parent, made


def test_a_key_records_its_maker_and_its_children_inherit_them():
    memberships, keys = workspace_with("admin")
    parent, child = keys_of_ada(memberships, keys)
    assert (parent.maker, parent.maker_email, child.maker, child.maker_email) == (ADA.subject, ADA.email) * 2
    assert (parent.owner, child.owner) == ("ws1", "ws1")
    # A key of nobody (the admin command's) makes keys of nobody
    root, _ = issue_account_key(keys, Actor("key", "root", "root", "ws1", ALL_SCOPES), "x", ALL_SCOPES, None, NOW)
    assert (root.maker, root.maker_email) == ("", "")
    assert key_actor(root, memberships) == Actor.of_key(root)


DOWNGRADES = [(old, new) for old in ("owner", "admin") for new in ROLES if ROLES.index(new) > ROLES.index(old)]


@pytest.mark.parametrize(("old", "new"), DOWNGRADES)
def test_a_downgrade_caps_the_makers_keys_and_their_children_at_the_new_roles_scopes(old, new):
    memberships, keys = workspace_with(old)
    keys_of_ada(memberships, keys)
    change_role(memberships, scopes_of("owner"), "ws1", ADA.subject, new)
    for key in keys.keys.values():
        actor = key_actor(key, memberships)
        assert actor is not None
        assert actor.scopes == key.scopes & scopes_of(new)
        assert actor.allows(ADMIN) == (new == "admin")
    # What a capped key makes is capped too: it cannot grant what the role lost
    capped = key_actor(next(iter(keys.keys.values())), memberships)
    assert capped is not None
    if new != "admin":
        with pytest.raises(ScopeNotGrantable):
            issue_account_key(keys, capped, "more", frozenset({ADMIN}), None, NOW)


@pytest.mark.parametrize("role", ["owner", "admin"])
@pytest.mark.parametrize("how", ["removed", "left"])
def test_a_removal_or_a_departure_ends_the_makers_keys_and_their_children_and_nobody_elses(role, how):
    memberships, keys = workspace_with(role)
    parent, child = keys_of_ada(memberships, keys)
    owners = Actor.of_member(memberships.items[("ws1", OWNER.subject)])
    others, _ = issue_account_key(keys, owners, "the owner's", ALL_SCOPES, None, NOW)
    if how == "removed":
        departure = remove_with_keys(memberships, keys, scopes_of("owner"), "ws1", ADA.subject, NOW)
    else:
        departure = leave(memberships, keys, "ws1", ADA.subject, NOW)
    assert departure.membership.subject == ADA.subject
    assert departure.revoked_keys == sorted([parent.id, child.id])
    by_id = {key.key_id: key for key in keys.keys.values()}
    # Revoked in the store, and refused at use even before (the membership is asked each time)
    assert (by_id[parent.id].revoked, by_id[child.id].revoked, by_id[others.key_id].revoked) == (True, True, False)
    assert key_actor(by_id[others.key_id], memberships) is not None
    unrevoked = [key for key in keys.keys.values() if key.maker == ADA.subject]
    assert all(key_actor(key, memberships) is None for key in unrevoked)


def test_the_last_owner_cannot_leave_and_a_stranger_cannot_leave_at_all():
    memberships, keys = workspace_with("viewer")
    with pytest.raises(LastOwner):
        leave(memberships, keys, "ws1", OWNER.subject, NOW)
    with pytest.raises(MemberNotFound):
        leave(memberships, keys, "ws1", "sub-stranger", NOW)
    assert memberships.role_in("ws1", OWNER.subject) == "owner"


def test_a_key_acting_for_somebody_is_refused_where_memberships_cannot_be_asked():
    memberships, keys = workspace_with("editor")
    editor = Actor.of_member(memberships.items[("ws1", ADA.subject)])
    key, _ = issue_account_key(keys, editor, "e", frozenset({LINKS_WRITE, STATS_READ}), None, NOW)
    assert key_actor(key, None) is None
    assert key_actor(key, memberships) is not None


class ReplicaBehindHome(InMemoryMemberships):
    """Memberships of a region whose replica has not yet seen a change made at home: a fresh
    check reads home (`items`), any other the replica (`replica`)."""

    def __init__(self, replica: InMemoryMemberships) -> None:
        super().__init__()
        self.replica = replica

    def membership_in(self, workspace_id: str, subject: str, *, fresh: bool = False):
        source = self if fresh else self.replica
        return source.items.get((workspace_id, subject))


def test_a_write_caps_a_key_at_its_makers_role_as_home_has_it_before_the_downgrade_replicates():
    # Given Ada, an admin, made a key; in another region the replica still calls her admin
    memberships, keys = workspace_with("admin")
    ada = Actor.of_member(memberships.items[("ws1", ADA.subject)])
    key, _ = issue_account_key(keys, ada, "ada's", ALL_SCOPES & ada.scopes, None, NOW)
    away = ReplicaBehindHome(replica=memberships)
    away.items = dict(memberships.items)
    # When the owner downgrades her to viewer at home (not yet replicated)
    change_role(away, Actor.of_member(away.items[("ws1", OWNER.subject)]).scopes, "ws1", ADA.subject, "viewer")
    # Then a write's fresh check caps the key at a viewer's scopes at once; a read may lag
    capped = key_actor(key, away, fresh=True)
    assert capped is not None
    assert capped.scopes == key.scopes & scopes_of("viewer")
    assert LINKS_WRITE not in capped.scopes
    lagging = key_actor(key, away)
    assert lagging is not None
    assert LINKS_WRITE in lagging.scopes
