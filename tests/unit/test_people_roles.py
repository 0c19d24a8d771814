"""Roles map to the scopes API keys carry; members manage only roles they could hold
(shortlink.people.roles, shortlink.people.members, shortlink.people.invitations)."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.access.api_keys import ADMIN, ALL_SCOPES, LINKS_READ, LINKS_WRITE, STATS_READ, ApiKey
from shortlink.people.actors import Actor
from shortlink.people.errors import (
    InvalidMemberOption,
    InvitationForAnother,
    InvitationNotValid,
    LastOwner,
    MemberRemoved,
    RoleNotGrantable,
)
from shortlink.people.invitations import INVITATION_LIFETIME, accept, invite, revoke
from shortlink.people.members import change_role, checked_email, join_on_first_sign_in, remove_member
from shortlink.people.model import ROLES, Membership, Person
from shortlink.people.roles import OWNERSHIP, ROLE_SCOPES, may_manage, scopes_of
from tests.fakes import InMemoryInvitations, InMemoryMemberships

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
OWNER = Person("sub-owner", "owner@example.com")
ANN = Person("sub-ann", "ann@example.com")


def test_each_role_holds_exactly_its_scopes():
    assert scopes_of("owner") == ALL_SCOPES | {OWNERSHIP}
    assert scopes_of("admin") == ALL_SCOPES
    assert scopes_of("editor") == {LINKS_READ, LINKS_WRITE, STATS_READ}
    assert scopes_of("viewer") == {LINKS_READ, STATS_READ}
    assert set(ROLE_SCOPES) == set(ROLES)


def test_roles_are_nested_each_holding_all_of_the_next_ones_scopes():
    for stronger, weaker in itertools.pairwise(ROLES):
        assert scopes_of(weaker) < scopes_of(stronger)


@pytest.mark.parametrize(
    ("manager", "allowed"),
    [
        ("owner", {"owner", "admin", "editor", "viewer"}),
        ("admin", {"admin", "editor", "viewer"}),
        ("editor", set()),
        ("viewer", set()),
    ],
)
def test_a_member_manages_only_roles_whose_scopes_they_hold_with_admin(manager, allowed):
    assert {role for role in ROLES if may_manage(scopes_of(manager), role)} == allowed


def test_an_actor_of_a_member_holds_its_roles_scopes_and_its_workspace():
    actor = Actor.of_member(Membership("ws1", ANN.subject, ANN.email, "viewer", NOW))
    assert (actor.kind, actor.id, actor.label, actor.owner, actor.role) == (
        "person",
        "sub-ann",
        ANN.email,
        "ws1",
        "viewer",
    )
    assert actor.allows(LINKS_READ)
    assert not actor.allows(LINKS_WRITE)
    assert not actor.allows(ADMIN)


def test_an_actor_of_a_key_is_the_key_in_its_account():
    key = ApiKey("k1", "ci", NOW, scopes=frozenset({LINKS_READ}), owner="ws1", expires_at=NOW + timedelta(days=1))
    actor = Actor.of_key(key)
    assert (actor.kind, actor.id, actor.label, actor.workspace_id) == ("key", "k1", "ci", "ws1")
    assert actor.scopes == {LINKS_READ}
    assert actor.expires_at == key.expires_at


def test_joining_on_first_sign_in_adds_once_and_keeps_an_existing_role():
    memberships = InMemoryMemberships()
    first = join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW)
    assert first is not None
    assert first.role == "viewer"
    memberships.set_role("ws1", ANN.subject, "admin")
    assert join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW) is None
    assert memberships.role_in("ws1", ANN.subject) == "admin"
    assert len(memberships.items) == 1


def test_an_invitation_is_taken_once_and_makes_a_member_of_its_role():
    memberships, invitations = InMemoryMemberships(), InMemoryInvitations()
    invitation, token = invite(
        invitations, scopes_of("admin"), "owner@example.com", "ws1", " Ann@Example.com ", "editor", NOW
    )
    assert invitation.email == "ann@example.com"
    assert invitation.expires_at == NOW + INVITATION_LIFETIME
    joined = accept(invitations, memberships, token, ANN, NOW + timedelta(minutes=5))
    assert isinstance(joined, Membership)
    assert joined.role == "editor"
    assert joined.added_by == "owner@example.com"
    with pytest.raises(InvitationNotValid):
        accept(invitations, memberships, token, Person("sub-bob", "bob@example.com"), NOW + timedelta(minutes=6))
    assert memberships.role_in("ws1", "sub-bob") is None


def test_an_expired_or_unknown_invitation_makes_nobody_a_member():
    memberships, invitations = InMemoryMemberships(), InMemoryInvitations()
    _, token = invite(invitations, scopes_of("owner"), "owner@example.com", "ws1", "ann@example.com", "viewer", NOW)
    with pytest.raises(InvitationNotValid):
        accept(invitations, memberships, token, ANN, NOW + INVITATION_LIFETIME)
    with pytest.raises(InvitationNotValid):
        accept(invitations, memberships, "x" * 500, ANN, NOW)
    assert memberships.items == {}


def test_an_admin_cannot_invite_an_owner_nor_an_editor_anyone():
    invitations = InMemoryInvitations()
    with pytest.raises(RoleNotGrantable):
        invite(invitations, scopes_of("admin"), "a", "ws1", "ann@example.com", "owner", NOW)
    with pytest.raises(RoleNotGrantable):
        invite(invitations, scopes_of("editor"), "e", "ws1", "ann@example.com", "viewer", NOW)
    assert invitations.items == {}


@pytest.mark.parametrize("email", ["", "ann", "ann@", "@example.com", "ann@localhost", "a b@example.com", "a@b@c.com"])
def test_an_address_that_is_none_is_refused_naming_the_field(email):
    with pytest.raises(InvalidMemberOption) as refused:
        checked_email(email)
    assert refused.value.field == "email"


def test_removing_a_member_ends_the_membership_but_never_the_last_owner():
    memberships = InMemoryMemberships()
    join_on_first_sign_in(memberships, OWNER, "ws1", "owner", NOW)
    join_on_first_sign_in(memberships, ANN, "ws1", "editor", NOW)
    with pytest.raises(RoleNotGrantable):
        remove_member(memberships, scopes_of("editor"), "ws1", OWNER.subject)
    with pytest.raises(LastOwner):
        remove_member(memberships, scopes_of("owner"), "ws1", OWNER.subject)
    with pytest.raises(LastOwner):
        change_role(memberships, scopes_of("owner"), "ws1", OWNER.subject, "admin")
    removed = remove_member(memberships, scopes_of("admin"), "ws1", ANN.subject)
    assert removed.subject == ANN.subject
    assert memberships.role_in("ws1", ANN.subject) is None
    assert [each.subject for each in memberships.members_of("ws1")] == [OWNER.subject]


def test_a_removed_member_does_not_join_again_on_sign_in_until_a_later_invitation_is_accepted():
    memberships, invitations = InMemoryMemberships(), InMemoryInvitations()
    join_on_first_sign_in(memberships, OWNER, "ws1", "owner", NOW)
    join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW)
    _, older = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", ANN.email, "admin", NOW)
    remove_member(memberships, scopes_of("owner"), "ws1", ANN.subject, NOW + timedelta(minutes=1))
    with pytest.raises(MemberRemoved, match="ask an owner to invite you again"):
        join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW)
    assert memberships.role_in("ws1", ANN.subject) is None
    assert [each.subject for each in memberships.members_of("ws1")] == [OWNER.subject]
    # Another workspace's single sign-on still takes her in.
    assert join_on_first_sign_in(memberships, ANN, "ws2", "viewer", NOW) is not None
    # An invitation made before the removal does not bring her back (and is spent).
    with pytest.raises(InvitationNotValid, match="older than your removal"):
        accept(invitations, memberships, older, ANN, NOW + timedelta(minutes=2))
    assert memberships.was_removed("ws1", ANN.subject)
    _, token = invite(
        invitations, scopes_of("owner"), OWNER.email, "ws1", ANN.email, "editor", NOW + timedelta(minutes=3)
    )
    joined = accept(invitations, memberships, token, ANN, NOW + timedelta(minutes=4))
    assert isinstance(joined, Membership)
    assert joined.role == "editor"
    assert not memberships.was_removed("ws1", ANN.subject)
    # Invited back, a later sign-in keeps the invited role.
    assert join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW) is None
    assert memberships.role_in("ws1", ANN.subject) == "editor"


def test_the_console_signs_people_in_at_the_pools_own_region(monkeypatch):
    # With several regions, every region's console is given the home region's pool
    from shortlink.adapters.cognito.user_pool import CognitoUserPool

    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)  # no credentials to look for on the network
    assert CognitoUserPool("us-east-1_AbC123", "client")._client.meta.region_name == "us-east-1"


@pytest.mark.parametrize("manager", ROLES)
@pytest.mark.parametrize("invited_role", ROLES)
def test_an_invitation_is_revoked_only_by_whoever_could_have_made_it(manager, invited_role):
    invitations = InMemoryInvitations()
    invitation, token = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", ANN.email, invited_role, NOW)
    if may_manage(scopes_of(manager), invited_role):
        revoked = revoke(invitations, scopes_of(manager), "ws1", invitation.invitation_id, NOW)
        assert revoked.invitation_id == invitation.invitation_id
        assert invitations.pending_for("ws1") == []
        return
    with pytest.raises(RoleNotGrantable):
        revoke(invitations, scopes_of(manager), "ws1", invitation.invitation_id, NOW)
    # Still open: its link still works for the person it names
    assert [each.invitation_id for each in invitations.pending_for("ws1")] == [invitation.invitation_id]
    assert accept(invitations, InMemoryMemberships(), token, ANN, NOW) is not None


def test_an_invitation_is_accepted_only_by_the_person_at_its_address():
    memberships, invitations = InMemoryMemberships(), InMemoryInvitations()
    _, token = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", ANN.email, "admin", NOW)
    for other in (Person("sub-bob", "bob@example.com"), Person("sub-ann2", "ann@example.com.evil")):
        with pytest.raises(InvitationForAnother, match=ANN.email):
            accept(invitations, memberships, token, other, NOW)
        assert memberships.role_in("ws1", other.subject) is None
    # Nobody joined and the invitation is not spent: Ann (her address in any case) takes it
    joined = accept(invitations, memberships, token, Person(ANN.subject, ANN.email.upper()), NOW)
    assert memberships.role_in("ws1", ANN.subject) == "admin"
    assert joined.workspace_id == "ws1"
