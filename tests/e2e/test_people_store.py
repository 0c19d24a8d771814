"""The membership store (adapters/dynamodb/memberships.py) with real pynamodb calls, on each
DynamoDB the e2e tests run against (the `store` fixture): moto in this process and dynalite,
which refuses the expressions DynamoDB refuses. Memberships, invitations and people's session
generations live in the API keys table beside the keys: the keys' own listing must not see them."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.adapters.dynamodb.memberships import DynamoInvitations, DynamoMemberships, DynamoPersonSessions
from shortlink.adapters.dynamodb.recovery_codes import DynamoRecoveryCodes
from shortlink.adapters.dynamodb.workspace_names import DynamoWorkspaceNames
from shortlink.people.errors import InvitationNotValid, MemberRemoved, RoleNotGrantable
from shortlink.people.invitations import accept, hash_token, invite, revoke
from shortlink.people.members import join_on_first_sign_in, remove_member
from shortlink.people.model import Invitation, Membership, Person
from shortlink.people.roles import scopes_of
from shortlink.people.workspaces import rename
from tests.e2e.store_tables import template_table_on

NOW = datetime.now(UTC).replace(microsecond=0)
OWNER = Person("sub-owner", "owner@example.com")
ANN = Person("sub-ann", "ann@example.com")


@pytest.fixture
def table(store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The template's API keys table on this store."""
    yield from template_table_on(store, monkeypatch, "ApiKeysTable")


def test_memberships_are_added_once_found_by_person_and_workspace_and_removed(table):
    memberships = DynamoMemberships(table)
    assert join_on_first_sign_in(memberships, OWNER, "ws1", "owner", NOW) is not None
    assert join_on_first_sign_in(memberships, ANN, "ws1", "editor", NOW) is not None
    assert join_on_first_sign_in(memberships, ANN, "ws2", "viewer", NOW) is not None
    # A second join keeps the first role: the conditional put refuses it
    assert join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW) is None
    assert memberships.role_in("ws1", ANN.subject) == "editor"
    assert memberships.membership_in("ws1", ANN.subject) == Membership("ws1", ANN.subject, ANN.email, "editor", NOW)
    assert [(m.workspace_id, m.role) for m in memberships.of_person(ANN.subject)] == [
        ("ws1", "editor"),
        ("ws2", "viewer"),
    ]
    assert [m.email for m in memberships.members_of("ws1")] == [ANN.email, OWNER.email]
    assert memberships.set_role("ws1", ANN.subject, "admin")
    assert not memberships.set_role("ws1", "sub-nobody", "admin")
    removed = remove_member(memberships, scopes_of("owner"), "ws1", ANN.subject)
    assert removed.role == "admin"
    assert memberships.role_in("ws1", ANN.subject) is None
    assert not memberships.remove("ws1", ANN.subject, NOW)
    assert memberships.role_in("ws2", ANN.subject) == "viewer"  # another workspace's stays


def test_a_removal_is_kept_so_that_only_an_accepted_invitation_lets_the_person_back(table):
    memberships, invitations = DynamoMemberships(table), DynamoInvitations(table)
    join_on_first_sign_in(memberships, OWNER, "ws1", "owner", NOW)
    join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW)
    remove_member(memberships, scopes_of("owner"), "ws1", ANN.subject, NOW)
    assert memberships.was_removed("ws1", ANN.subject)
    assert not memberships.was_removed("ws1", OWNER.subject)
    assert not memberships.was_removed("ws2", ANN.subject)
    # The removal is no membership: not found, not listed, not changed, not removed again.
    assert memberships.membership_in("ws1", ANN.subject) is None
    assert [m.subject for m in memberships.members_of("ws1")] == [OWNER.subject]
    assert memberships.of_person(ANN.subject) == []
    assert not memberships.set_role("ws1", ANN.subject, "admin")
    assert not memberships.remove("ws1", ANN.subject, NOW)
    # Single sign-on's conditional put does not replace it.
    with pytest.raises(MemberRemoved):
        join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW)
    assert not memberships.add(Membership("ws1", ANN.subject, ANN.email, "viewer", NOW))
    assert memberships.was_removed("ws1", ANN.subject)
    # An invitation made before the removal does not replace it; one made after does, with its role.
    ann = Membership("ws1", ANN.subject, ANN.email, "viewer", NOW)
    assert not memberships.add(ann, invited_at=NOW - timedelta(seconds=1))
    assert not memberships.add(ann, invited_at=NOW)
    assert memberships.was_removed("ws1", ANN.subject)
    later = NOW + timedelta(seconds=1)
    _, token = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", ANN.email, "editor", later)
    joined = accept(invitations, memberships, token, ANN, later)
    assert joined == Membership("ws1", ANN.subject, ANN.email, "editor", later, OWNER.email)
    assert not memberships.was_removed("ws1", ANN.subject)
    assert memberships.role_in("ws1", ANN.subject) == "editor"
    # A readmission never replaces a membership: its role stays.
    assert not memberships.add(ann, invited_at=later + timedelta(days=1))
    assert memberships.role_in("ws1", ANN.subject) == "editor"


def test_an_invitation_is_taken_once_and_never_after_its_end(table):
    invitations, memberships = DynamoInvitations(table), DynamoMemberships(table)
    invitation, token = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", "ann@example.com", "viewer", NOW)
    assert [each.invitation_id for each in invitations.pending_for("ws1")] == [invitation.invitation_id]
    assert invitations.pending_for("ws2") == []
    joined = accept(invitations, memberships, token, ANN, NOW)
    assert isinstance(joined, Membership)
    assert joined.role == "viewer"
    assert invitations.take(hash_token(token), NOW) is None  # spent
    assert invitations.pending_for("ws1") == []
    expired = Invitation(
        "old", "ws1", "bob@example.com", "editor", OWNER.email, NOW - timedelta(days=8), NOW - timedelta(days=1)
    )
    invitations.add("ab" * 32, expired)
    assert invitations.take("ab" * 32, NOW) is None
    assert invitations.take("cd" * 32, NOW) is None  # unknown


def test_a_revoked_invitation_is_no_longer_open_and_its_link_takes_no_one(table):
    invitations, memberships = DynamoInvitations(table), DynamoMemberships(table)
    invitation, token = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", "ann@example.com", "viewer", NOW)
    # Another workspace's manager, or an id that is no open invitation, revokes nothing
    for workspace, invitation_id in (("ws2", invitation.invitation_id), ("ws1", "0" * 12)):
        with pytest.raises(InvitationNotValid):
            revoke(invitations, scopes_of("owner"), workspace, invitation_id, NOW)
    # An admin cannot withdraw an owner's invitation, as they could not have made it
    owners, _ = invite(invitations, scopes_of("owner"), OWNER.email, "ws1", "bob@example.com", "owner", NOW)
    with pytest.raises(RoleNotGrantable):
        revoke(invitations, scopes_of("admin"), "ws1", owners.invitation_id, NOW)
    assert revoke(invitations, scopes_of("admin"), "ws1", invitation.invitation_id, NOW) == invitation
    assert [each.invitation_id for each in invitations.pending_for("ws1")] == [owners.invitation_id]
    with pytest.raises(InvitationNotValid):
        accept(invitations, memberships, token, ANN, NOW)
    assert invitations.revoke("ws1", invitation.invitation_id, NOW) is None  # once
    assert memberships.members_of("ws1") == []


def test_workspaces_names_are_read_in_one_batch_and_the_last_one_set_wins(table):
    names = DynamoWorkspaceNames(table)
    assert names.names_of(["ws1", "ws2"]) == {}
    rename(names, "ws1", "Acme", NOW)
    rename(names, "ws1", " Acme marketing ", NOW + timedelta(seconds=1))
    rename(names, "ws2", "Zürich", NOW)
    assert names.names_of(["ws1", "ws2", "ws3", "ws1"]) == {"ws1": "Acme marketing", "ws2": "Zürich"}
    assert names.names_of([f"ws{n}" for n in range(250)])["ws2"] == "Zürich"  # more than one batch
    # Beside the keys and memberships of the same table, and taken for none of them
    assert DynamoMemberships(table).members_of("ws1") == []


def test_a_persons_session_generation_moves_on_with_each_sign_out(table):
    sessions = DynamoPersonSessions(table)
    assert sessions.session_generation(ANN.subject) == 0
    sessions.end_sessions(ANN.subject)
    sessions.end_sessions(ANN.subject)
    assert sessions.session_generation(ANN.subject) == 2
    assert sessions.session_generation(OWNER.subject) == 0


def test_the_keys_listing_sees_keys_only(table):
    keys, memberships = DynamoApiKeyStore(table), DynamoMemberships(table)
    key_hash = hash_api_key("sl_aKeyOfTheWorkspace000000000000000")
    keys.add(key_hash, key_id_for(key_hash), "ci", owner="ws1")
    join_on_first_sign_in(memberships, OWNER, "ws1", "owner", NOW)
    DynamoPersonSessions(table).end_sessions(OWNER.subject)
    invite(DynamoInvitations(table), scopes_of("owner"), OWNER.email, "ws1", "ann@example.com", "viewer", NOW)
    join_on_first_sign_in(memberships, ANN, "ws1", "viewer", NOW)
    remove_member(memberships, scopes_of("owner"), "ws1", ANN.subject)
    assert [key.name for key in keys.list_keys()] == ["ci"]
    assert [key.name for key in keys.list_keys(owner="ws1")] == ["ci"]


def test_recovery_codes_are_spent_once_each_and_replaced_whole(table):
    codes = DynamoRecoveryCodes(table)
    codes.replace("sub-ann", {"h1", "h2", "h3"})
    assert codes.remaining("sub-ann") == 3
    # Spending is one conditional write: the second spender of a code gets False
    assert codes.spend("sub-ann", "h1")
    assert not codes.spend("sub-ann", "h1")
    assert not codes.spend("sub-nobody", "h2")
    assert codes.remaining("sub-ann") == 2
    codes.replace("sub-ann", {"h4"})
    assert not codes.spend("sub-ann", "h2")
    assert codes.spend("sub-ann", "h4")
    assert codes.remaining("sub-ann") == 0
    assert not codes.spend("sub-ann", "h4")  # the set emptied: the attribute is gone
    codes.replace("sub-ann", {"h5"})
    codes.clear("sub-ann")
    assert codes.remaining("sub-ann") == 0
    # The keys' own listing does not see them
    assert DynamoApiKeyStore(table).list_keys() == []
