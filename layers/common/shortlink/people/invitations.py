"""Invitations: a link with a secret token, sent by email, that makes whoever signs in or up
through it a member. Stored only as the token's hash; taken once; it expires."""

import hashlib
import secrets
from datetime import datetime, timedelta

from shortlink.people.errors import InvitationForAnother, InvitationNotValid, MemberRemoved, RoleNotGrantable
from shortlink.people.members import checked_email, join_on_first_sign_in
from shortlink.people.model import Invitation, Membership, Person, Role
from shortlink.people.ports import Invitations, Memberships
from shortlink.people.roles import require_manage, scopes_of

INVITATION_LIFETIME = timedelta(days=7)
TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 64


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invite(
    invitations: Invitations,
    manager_scopes: frozenset[str],
    inviter: str,
    workspace_id: str,
    email: str,
    role: Role,
    now: datetime,
    inviter_subject: str = "",
) -> tuple[Invitation, str]:
    """A new invitation and its token (for the link in the message, never stored): the inviter
    must be able to manage `role`; `inviter_subject` (the person they act for) must still be
    when it is taken."""
    address = checked_email(email)
    require_manage(manager_scopes, role)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    token_hash = hash_token(token)
    invitation = Invitation(
        token_hash[:12], workspace_id, address, role, inviter, now, now + INVITATION_LIFETIME, inviter_subject
    )
    invitations.add(token_hash, invitation)
    return invitation, token


def revoke(
    invitations: Invitations, manager_scopes: frozenset[str], workspace_id: str, invitation_id: str, now: datetime
) -> Invitation:
    """Withdraw the workspace's pending invitation `invitation_id` (its public id): its link no
    longer works. The manager must be able to manage its role, as to invite to it."""
    open_ones = invitations.pending_for(workspace_id)
    pending = next((each for each in open_ones if each.invitation_id == invitation_id), None)
    if pending is None:
        raise InvitationNotValid("no such open invitation in this workspace")
    require_manage(manager_scopes, pending.role)
    revoked = invitations.revoke(workspace_id, invitation_id, now)
    if revoked is None:
        raise InvitationNotValid("this invitation was used or expired meanwhile")
    return revoked


def accept(
    invitations: Invitations, memberships: Memberships, token: str, person: Person, now: datetime
) -> Membership | Invitation:
    """Spend the invitation `token` names: `person` joins its workspace with its role (a member
    already keeps the role they have: the invitation is spent all the same; a person removed
    from the workspace before it was made is let in again, one removed after it is not). The
    new membership, or the invitation if they were a member; InvitationNotValid if it is
    unknown, spent, expired or older than the person's removal, or if the person who made it
    has since been removed or may no longer grant its role (it is spent then);
    InvitationForAnother (and it stays open) if it was sent to another address than the person's."""
    if not 0 < len(token) <= MAX_TOKEN_CHARS:
        raise InvitationNotValid("no such invitation")
    token_hash = hash_token(token)
    open_one = invitations.find(token_hash, now)
    if open_one is not None and open_one.email != person.email.strip().lower():
        raise InvitationForAnother(open_one.email)
    invitation = invitations.take(token_hash, now)
    if invitation is None:
        raise InvitationNotValid("this invitation is unknown, was used already, or has expired")
    _require_inviter_still_may_grant(memberships, invitation)
    try:
        joined = join_on_first_sign_in(
            memberships,
            person,
            invitation.workspace_id,
            invitation.role,
            now,
            invitation.invited_by,
            invitation.created_at,
        )
    except MemberRemoved as removed:
        raise InvitationNotValid(f"this invitation is older than your removal: {removed}") from removed
    return joined or invitation


def _require_inviter_still_may_grant(memberships: Memberships, invitation: Invitation) -> None:
    """An invitation carries its maker's authority only while they hold it: one made by an admin
    who was removed or demoted since grants nothing."""
    if not invitation.inviter_subject:
        return
    # At home: a removal made a moment ago, in another region, counts.
    inviter = memberships.membership_in(invitation.workspace_id, invitation.inviter_subject, fresh=True)
    refused = InvitationNotValid(
        f"{invitation.invited_by} may no longer invite to this workspace as {invitation.role}: ask for a new invitation"
    )
    if inviter is None:
        raise refused
    try:
        require_manage(scopes_of(inviter.role), invitation.role)
    except RoleNotGrantable:
        raise refused from None
