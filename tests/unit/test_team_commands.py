"""The team commands both doors run (shortlink.commands.team): each change checked as the role
table says, written once, and recorded in one entry naming the person acted on, their email then
and their roles before and after; a refused or failed command writes and records nothing."""

from datetime import UTC, datetime, timedelta

import pytest

from shortlink.access.api_keys import ADMIN, LINKS_READ, MEMBERS_WRITE, STATS_READ, ApiKey
from shortlink.audit.model import PersonChange, RecordedActor
from shortlink.audit.recording import AuditRecorder, RequestOrigin
from shortlink.audit.security import failure_entries
from shortlink.commands.team import TeamCommands, TeamStores, create_workspace
from shortlink.errors import StorageUnavailable
from shortlink.people.activity import note_activity
from shortlink.people.actors import Actor
from shortlink.people.errors import (
    InvalidMemberOption,
    InvalidWorkspaceSetting,
    LastOwner,
    RoleNotGrantable,
    SelfRemoval,
)
from shortlink.people.model import Invitation, Membership, Person
from shortlink.people.workspaces import MAX_OWNED_WORKSPACES
from tests.fakes import InMemoryApiKeys, InMemoryAuditTrail, InMemoryInvitations, InMemoryMemberships

NOW = datetime(2026, 12, 3, 12, 30, tzinfo=UTC)
OWNER = Membership("ws1", "sub-owner", "owner@example.com", "owner", NOW - timedelta(days=9))
ADMIN_ANN = Membership("ws1", "sub-ann", "ann@example.com", "admin", NOW - timedelta(days=5))
EDITOR_ED = Membership("ws1", "sub-ed", "ed@example.com", "editor", NOW - timedelta(days=2))


class Names:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def names_of(self, workspace_ids: list[str]) -> dict[str, str]:
        return {each: self.names[each] for each in workspace_ids if each in self.names}

    def rename(self, workspace_id: str, name: str, now: datetime) -> None:
        self.names[workspace_id] = name


class Messages:
    """A way of sending invitations: it reaches the person, cannot, or fails outright."""

    def __init__(self, outcome: bool | Exception) -> None:
        self.outcome = outcome
        self.sent: list[tuple[Invitation, str]] = []

    def send(self, invitation: Invitation, link: str) -> bool:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        self.sent.append((invitation, link))
        return self.outcome


class Team:
    def __init__(self, outcome: bool | Exception = True) -> None:
        self.memberships, self.invitations = InMemoryMemberships(), InMemoryInvitations()
        self.keys, self.names, self.trail = InMemoryApiKeys(), Names(), InMemoryAuditTrail()
        self.messages = Messages(outcome)
        for member in (OWNER, ADMIN_ANN, EDITOR_ED):
            self.memberships.add(member)
        self.stores = TeamStores(self.memberships, self.invitations, self.keys, self.names, (self.messages,))

    def by(self, actor: Actor) -> TeamCommands:
        origin = RequestOrigin("ws1", RecordedActor(actor.kind, actor.id, actor.label), "client-hash", "req-1")
        return TeamCommands(self.stores, actor, origin, AuditRecorder(self.trail, None), NOW)

    def recorded(self) -> list[tuple[str, str, PersonChange | None]]:
        return [(entry.action, entry.target.id, entry.person) for entry in self.trail.entries]


def link_of(token: str) -> str:
    return f"https://sho.rt/console/invitations/{token}"


def test_an_invitation_sent_is_recorded_with_the_address_and_role_and_shows_no_link():
    team = Team()
    made = team.by(Actor.of_member(ADMIN_ANN)).invite(" New@Example.com ", "editor", link_of)
    assert (made.sent, made.invitation.email, made.invitation.role) == (True, "new@example.com", "editor")
    assert team.messages.sent == [(made.invitation, made.link)]
    assert team.recorded() == [
        ("member.invited", made.invitation.invitation_id, PersonChange("new@example.com", "", "editor"))
    ]


def test_an_invitation_no_way_could_send_says_so_and_one_a_way_failed_on_is_withdrawn_unrecorded():
    team = Team(outcome=False)
    made = team.by(Actor.of_member(ADMIN_ANN)).invite("new@example.com", "viewer", link_of)
    assert not made.sent
    assert made.link.startswith("https://sho.rt/console/invitations/")
    failing = Team(outcome=StorageUnavailable("SES throttled"))
    with pytest.raises(StorageUnavailable):
        failing.by(Actor.of_member(ADMIN_ANN)).invite("new@example.com", "viewer", link_of)
    assert failing.invitations.pending_for("ws1") == []
    assert failing.recorded() == []


@pytest.mark.parametrize(
    ("scopes", "role", "lacking"),
    [
        (frozenset({ADMIN, LINKS_READ, STATS_READ}), "viewer", MEMBERS_WRITE),  # admin alone manages no one
        (frozenset({MEMBERS_WRITE}), "viewer", LINKS_READ),  # nor the write scope without the role's
        (frozenset({MEMBERS_WRITE, LINKS_READ, STATS_READ}), "editor", "links:write"),
    ],
)
def test_a_key_invites_only_roles_whose_scopes_it_holds_and_is_told_the_first_it_lacks(scopes, role, lacking):
    team = Team()
    key = Actor.of_key(ApiKey("0123456789ab", "provisioner", NOW, scopes=scopes, owner="ws1"))
    with pytest.raises(RoleNotGrantable) as refused:
        team.by(key).invite("new@example.com", role, link_of)
    assert refused.value.scope == lacking
    assert (team.invitations.pending_for("ws1"), team.recorded()) == ([], [])


def test_a_role_change_names_the_email_and_both_roles_and_grants_nothing_above_the_managers_own():
    team = Team()
    ann = team.by(Actor.of_member(ADMIN_ANN))
    assert ann.change_role("sub-ed", "viewer").role == "viewer"
    assert team.recorded() == [("member.role_changed", "sub-ed", PersonChange("ed@example.com", "editor", "viewer"))]
    with pytest.raises(RoleNotGrantable):
        ann.change_role("sub-ed", "owner")  # an admin makes no owner
    with pytest.raises(RoleNotGrantable):
        ann.change_role("sub-owner", "viewer")  # nor demotes one
    with pytest.raises(InvalidMemberOption):
        ann.change_role("sub-ed", "superuser")
    with pytest.raises(LastOwner):
        team.by(Actor.of_member(OWNER)).change_role("sub-owner", "admin")
    assert team.memberships.role_in("ws1", "sub-owner") == "owner"
    assert len(team.recorded()) == 1  # refusals write nothing and record nothing


def test_a_removal_records_the_member_and_each_key_that_ended_and_nobody_removes_themself():
    team = Team()
    team.keys.add("h1", "key111111111", "ed's bot", owner="ws1", maker="sub-ed", maker_email="ed@example.com")
    ann = team.by(Actor.of_member(ADMIN_ANN))
    with pytest.raises(SelfRemoval):
        ann.removable("sub-ann")
    with pytest.raises(SelfRemoval):
        ann.remove("sub-ann")
    assert ann.removable("sub-ed") == EDITOR_ED
    ann.remove("sub-ed")
    assert team.memberships.role_in("ws1", "sub-ed") is None
    assert team.recorded() == [
        ("member.removed", "sub-ed", PersonChange("ed@example.com", "editor", "")),
        ("key.revoked", "key111111111", None),
    ]


def test_a_resent_invitation_has_a_new_link_the_old_one_stops_and_one_entry_says_so():
    team = Team()
    ann = team.by(Actor.of_member(ADMIN_ANN))
    first = ann.invite("new@example.com", "editor", link_of)
    again = ann.resend(first.invitation.invitation_id, link_of)
    assert again.link != first.link
    assert [each.invitation_id for each in team.invitations.pending_for("ws1")] == [again.invitation.invitation_id]
    assert team.recorded()[-1] == (
        "member.invitation_resent",
        again.invitation.invitation_id,
        PersonChange("new@example.com", "", "editor"),
    )


def test_a_bad_name_renames_nothing_and_a_new_workspace_is_its_makers_with_its_first_entry():
    team = Team()
    with pytest.raises(InvalidWorkspaceSetting):
        team.by(Actor.of_member(OWNER)).rename("\u202eevil")
    assert (team.names.names, team.recorded()) == ({}, [])
    with pytest.raises(InvalidWorkspaceSetting):
        create_workspace(team.stores, Person("sub-new", "new@example.com"), " ", NOW, origin, recorder(team))
    made, name = create_workspace(
        team.stores, Person("sub-new", "new@example.com"), " Spring campaign ", NOW, origin, recorder(team)
    )
    assert (made.role, made.subject, name) == ("owner", "sub-new", "Spring campaign")
    assert team.names.names == {made.workspace_id: "Spring campaign"}
    assert team.memberships.role_in(made.workspace_id, "sub-new") == "owner"
    [created] = team.trail.entries
    assert (created.workspace, created.action, created.actor.label) == (
        made.workspace_id,
        "workspace.created",
        "new@example.com",
    )


def test_a_person_owns_a_bounded_number_of_workspaces_and_a_refused_one_writes_nothing():
    team = Team()
    maker = Person("sub-many", "many@example.com")
    for n in range(MAX_OWNED_WORKSPACES):
        create_workspace(team.stores, maker, f"Campaign {n}", NOW, origin, recorder(team))
    written = (len(team.memberships.of_person("sub-many")), len(team.names.names), len(team.trail.entries))
    with pytest.raises(InvalidWorkspaceSetting, match=f"owns at most {MAX_OWNED_WORKSPACES} workspaces"):
        create_workspace(team.stores, maker, "One too many", NOW, origin, recorder(team))
    assert (len(team.memberships.of_person("sub-many")), len(team.names.names), len(team.trail.entries)) == written
    # Belonging to others' workspaces does not count: only those the person owns
    for n in range(MAX_OWNED_WORKSPACES):
        team.memberships.add(Membership(f"ws-other-{n}", "sub-editor", "e@example.com", "editor", NOW))
    made, _ = create_workspace(team.stores, Person("sub-editor", "e@example.com"), "Mine", NOW, origin, recorder(team))
    assert made.role == "owner"


def origin(actor: Actor) -> RequestOrigin:
    return RequestOrigin(actor.workspace_id, RecordedActor(actor.kind, actor.id, actor.label), "", "req-2")


def recorder(team: Team) -> AuditRecorder:
    return AuditRecorder(team.trail, None)


def test_last_active_is_written_at_most_once_an_hour_per_member():
    memberships = InMemoryMemberships()
    memberships.add(EDITOR_ED)
    writes: list[datetime] = []
    original = memberships.mark_active

    def counted(workspace_id: str, subject: str, hour: datetime) -> None:
        writes.append(hour)
        original(workspace_id, subject, hour)

    memberships.mark_active = counted  # type: ignore[method-assign]
    for minutes in (0, 5, 29, 31, 60):
        member = memberships.membership_in("ws1", "sub-ed")
        assert member is not None
        note_activity(memberships, member, NOW + timedelta(minutes=minutes))
    assert writes == [datetime(2026, 12, 3, 12, tzinfo=UTC), datetime(2026, 12, 3, 13, tzinfo=UTC)]


def test_failed_sign_ins_make_one_entry_per_workspace_block_and_minute_and_keep_no_secret():
    trail = InMemoryAuditTrail()
    accounts = [EDITOR_ED, Membership("ws2", "sub-ed", "ed@example.com", "viewer", NOW)]
    written = [
        trail.add_once(entry)
        for at, block in [(NOW, "block-a"), (NOW + timedelta(seconds=20), "block-a"), (NOW, "block-b")]
        for entry in failure_entries(accounts, "password", block, "req", at)
    ]
    # The same block within a minute: nothing more; another block, or the next minute: one more each
    assert written == [True, True, False, False, True, True]
    assert all(trail.add_once(entry) for entry in failure_entries(accounts, "mfa", "block-a", "req", NOW))
    later = failure_entries(accounts, "password", "block-a", "req", NOW + timedelta(minutes=1))
    assert all(trail.add_once(entry) for entry in later)
    assert {(e.workspace, e.action) for e in trail.entries} == {
        (ws, action) for ws in ("ws1", "ws2") for action in ("session.sign_in_failed", "session.mfa_failed")
    }
    assert all(e.person == PersonChange("ed@example.com") and e.target.id == "sub-ed" for e in trail.entries)
