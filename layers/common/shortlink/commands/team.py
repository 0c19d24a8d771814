"""The team commands: invite, resend and revoke invitations, change a member's role, remove a
member, rename a workspace and create one. The console's Members and Workspace settings pages
and the API's team routes both run these, so each change gets the same checks (a manager grants
and removes only roles whose scopes they hold; a workspace keeps an owner) and one audit entry
naming the person acted on, their email then and their role before and after.

Each command writes its change first, then its entry (a failure there is the request's, a 503,
as for every change: shortlink.audit.recording)."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from shortlink.access.api_keys import MadeKeys
from shortlink.audit.model import Action, PersonChange
from shortlink.audit.recording import AuditRecorder, RequestOrigin
from shortlink.errors import ShortlinkError, StorageUnavailable
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidWorkspaceSetting, InvitationNotValid, MemberNotFound, SelfRemoval
from shortlink.people.invitations import invite, revoke
from shortlink.people.members import change_role, checked_role
from shortlink.people.model import Invitation, Membership, Person, plausible_id
from shortlink.people.offboarding import remove_with_keys
from shortlink.people.ports import InvitationMessages, Invitations, Memberships, WorkspaceNames
from shortlink.people.roles import require_manage
from shortlink.people.workspaces import MAX_OWNED_WORKSPACES, checked_name, new_workspace_id, rename

# The invitation page's link for a token (the door knows its host).
InvitationLink = Callable[[str], str]


@dataclass(frozen=True)
class TeamStores:
    """What the team commands read and write (built by the composition root)."""

    memberships: Memberships
    invitations: Invitations
    keys: MadeKeys
    names: WorkspaceNames
    messages: Sequence[InvitationMessages]  # tried in turn until one reaches the person


@dataclass(frozen=True)
class InvitationMade:
    """An invitation made (or made again), its link, and whether a message carries it to the
    person (`sent`); not sent, the inviter passes the link on: it is shown this once."""

    invitation: Invitation
    link: str
    sent: bool


class TeamCommands:
    """The team commands of one request by `actor` in their workspace, recorded from `origin`."""

    def __init__(
        self, stores: TeamStores, actor: Actor, origin: RequestOrigin, recorder: AuditRecorder, now: datetime
    ) -> None:
        self._stores = stores
        self._actor = actor
        self._origin = origin
        self._recorder = recorder
        self._now = now

    def _record(self, action: Action, target_id: str, person: PersonChange, changed: tuple[str, ...] = ()) -> None:
        self._recorder.record([self._origin.entry(action, target_id, self._now, changed, person)])

    def members(self) -> list[Membership]:
        """The workspace's members, by email."""
        return self._stores.memberships.members_of(self._actor.workspace_id)

    def member(self, subject: str) -> Membership | None:
        """The workspace's member `subject`, or None."""
        return self._stores.memberships.membership_in(self._actor.workspace_id, subject)

    def pending(self) -> list[Invitation]:
        """The workspace's open invitations."""
        return self._stores.invitations.pending_for(self._actor.workspace_id)

    def invite(self, email: str, role_name: str, link_of: InvitationLink) -> InvitationMade:
        """Invite `email` as `role_name` and send the link each way in turn (InvalidMemberOption,
        RoleNotGrantable). If a way fails outright, the invitation is withdrawn before the error
        goes on: no one was told of it, so none stays open."""
        made = self._made(email, role_name, link_of)
        self._record(
            "member.invited",
            made.invitation.invitation_id,
            PersonChange(made.invitation.email, "", made.invitation.role),
        )
        return made

    def resend(self, invitation_id: str, link_of: InvitationLink) -> InvitationMade:
        """Make the open invitation `invitation_id` again, with a new link and a full lifetime
        (only a token's hash is kept: the old link cannot be sent twice), send it, then withdraw
        the old one. The manager must be able to manage its role, as to revoke it."""
        old = self.revocable(invitation_id)
        made = self._made(old.email, old.role, link_of)
        self._stores.invitations.revoke(self._actor.workspace_id, old.invitation_id, self._now)  # None: used meanwhile
        self._record("member.invitation_resent", made.invitation.invitation_id, PersonChange(old.email, "", old.role))
        return made

    def revoke_invitation(self, invitation_id: str) -> Invitation:
        """Withdraw an open invitation: its link takes no one (InvitationNotValid, RoleNotGrantable)."""
        stores, actor = self._stores, self._actor
        revoked = revoke(stores.invitations, actor.scopes, actor.workspace_id, invitation_id, self._now)
        self._record("member.invitation_revoked", revoked.invitation_id, PersonChange(revoked.email, "", revoked.role))
        return revoked

    def change_role(self, subject: str, role_name: str) -> Membership:
        """Give the member `subject` the role `role_name`: the membership as it is now."""
        role = checked_role(role_name)
        actor = self._actor
        before = change_role(self._stores.memberships, actor.scopes, actor.workspace_id, subject, role)
        if before.role != role:
            self._record("member.role_changed", subject, PersonChange(before.email, before.role, role), ("role",))
        return Membership(
            before.workspace_id, subject, before.email, role, before.added_at, before.added_by, before.last_active_at
        )

    def removable(self, subject: str) -> Membership:
        """The member `subject`, if this actor may remove them: MemberNotFound, SelfRemoval or
        RoleNotGrantable otherwise (what a confirm step checks before it asks)."""
        found = self.member(subject) if plausible_id(subject) else None
        if found is None:
            raise MemberNotFound(subject)
        if subject == self._actor.maker:
            raise SelfRemoval()
        require_manage(self._actor.scopes, found.role)
        return found

    def revocable(self, invitation_id: str) -> Invitation:
        """The open invitation `invitation_id`, if this actor may revoke (or resend) it:
        InvitationNotValid or RoleNotGrantable otherwise."""
        found = next((each for each in self.pending() if each.invitation_id == invitation_id), None)
        if found is None:
            raise InvitationNotValid("no such open invitation in this workspace")
        require_manage(self._actor.scopes, found.role)
        return found

    def remove(self, subject: str) -> Membership:
        """Remove the member `subject` (never oneself: SelfRemoval) and revoke the keys that act
        for them: one entry for the removal, one per key."""
        actor, stores = self._actor, self._stores
        if subject == actor.maker:
            raise SelfRemoval()
        departure = remove_with_keys(
            stores.memberships, stores.keys, actor.scopes, actor.workspace_id, subject, self._now
        )
        removed = departure.membership
        entries = [
            self._origin.entry("member.removed", subject, self._now, (), PersonChange(removed.email, removed.role, ""))
        ]
        entries += [self._origin.entry("key.revoked", key_id, self._now) for key_id in departure.revoked_keys]
        self._recorder.record(entries)
        return removed

    def rename(self, name: str) -> str:
        """Give the workspace the name `name` (InvalidWorkspaceSetting): the name as stored."""
        stored = rename(self._stores.names, self._actor.workspace_id, name, self._now)
        self._recorder.record([self._origin.entry("setting.changed", "name", self._now, ("name",))])
        return stored

    def _made(self, email: str, role_name: str, link_of: InvitationLink) -> InvitationMade:
        stores, actor = self._stores, self._actor
        role = checked_role(role_name)
        invitation, token = invite(
            stores.invitations, actor.scopes, actor.label, actor.workspace_id, email, role, self._now, actor.maker
        )
        link = link_of(token)
        try:
            sent = any(messages.send(invitation, link) for messages in stores.messages)
        except ShortlinkError:
            stores.invitations.revoke(actor.workspace_id, invitation.invitation_id, self._now)
            raise
        return InvitationMade(invitation, link, sent)


def create_workspace(
    stores: TeamStores,
    person: Person,
    name: str,
    now: datetime,
    origin_of: Callable[[Actor], RequestOrigin],
    recorder: AuditRecorder,
) -> tuple[Membership, str]:
    """A new workspace named `name` (InvalidWorkspaceSetting), `person` its owner, and its name
    as stored: its first audit entry, `workspace.created`, is theirs."""
    checked = checked_name(name)  # before anything is written: a bad name makes nothing
    owned = sum(1 for each in stores.memberships.of_person(person.subject) if each.role == "owner")
    if owned >= MAX_OWNED_WORKSPACES:
        raise InvalidWorkspaceSetting(
            "name", f"a person owns at most {MAX_OWNED_WORKSPACES} workspaces: leave or hand one over first"
        )
    membership = Membership(new_workspace_id(), person.subject, person.email, "owner", now, person.email)
    if not stores.memberships.add(membership):  # 48 random bits met another's: nothing was written
        raise StorageUnavailable("a new workspace's id was taken: retry")
    stores.names.rename(membership.workspace_id, checked, now)
    origin = origin_of(Actor.of_member(membership))
    recorder.record([origin.entry("workspace.created", membership.workspace_id, now, ("name",))])
    return membership, checked
