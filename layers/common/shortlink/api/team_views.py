"""How the API reads and shows a workspace's team (`/members`, `/invitations`, `/workspace`,
`/workspaces`): members with their role, when they joined and were last active; invitations by
their public id (never a token), and the link of one no message carried, shown once."""

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from shortlink.access.api_keys import MEMBERS_WRITE
from shortlink.commands.team import InvitationMade
from shortlink.people.members import MAX_EMAIL_CHARS
from shortlink.people.model import Invitation, Membership, Role
from shortlink.people.workspaces import MAX_NAME_CHARS
from shortlink.schemas.links import STRICT_REQUEST

SUBJECT_PATTERN = r"^[^/\s]{1,128}$"  # the pool's sub (shortlink.people.model.plausible_id)
INVITATION_ID_PATTERN = r"^[0-9a-f]{12}$"


class MemberView(BaseModel):
    subject: str = Field(description="the user pool's sub of the person: names them in /members/{subject}")
    email: str
    role: Role
    joined_at: datetime
    last_active_at: datetime | None = Field(description="the hour of their latest request here; null: none yet")
    added_by: str = Field(description="who invited them (an email or a key's name); empty: their first sign-in")

    @classmethod
    def of(cls, member: Membership) -> "MemberView":
        return cls(
            subject=member.subject,
            email=member.email,
            role=member.role,
            joined_at=member.added_at,
            last_active_at=member.last_active_at,
            added_by=member.added_by,
        )


class MemberList(BaseModel):
    members: list[MemberView]


class RoleChange(BaseModel):
    model_config = STRICT_REQUEST

    role: Role = Field(description=f"the new role: one whose scopes you hold all of, with {MEMBERS_WRITE}")


class InvitationView(BaseModel):
    invitation_id: str = Field(description="its public id (never its token)")
    email: str
    role: Role
    invited_by: str
    created_at: datetime
    expires_at: datetime

    @classmethod
    def of(cls, invitation: Invitation) -> "InvitationView":
        return cls(
            invitation_id=invitation.invitation_id,
            email=invitation.email,
            role=invitation.role,
            invited_by=invitation.invited_by,
            created_at=invitation.created_at,
            expires_at=invitation.expires_at,
        )


class InvitationList(BaseModel):
    invitations: list[InvitationView]


class InviteRequest(BaseModel):
    model_config = STRICT_REQUEST

    email: Annotated[str, Field(min_length=3, max_length=MAX_EMAIL_CHARS, description="where the invitation goes")]
    role: Role


class InvitationMadeView(BaseModel):
    invitation: InvitationView
    sent: bool = Field(description="true once a message carries the link to the person; false: pass `link` on")
    link: str | None = Field(
        description="the invitation's link when no message carried it (shown this once); else null"
    )

    @classmethod
    def of(cls, made: InvitationMade) -> "InvitationMadeView":
        link = None if made.sent else made.link
        return cls(invitation=InvitationView.of(made.invitation), sent=made.sent, link=link)


class WorkspaceName(BaseModel):
    model_config = STRICT_REQUEST

    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS, description="as its members read it")]


class NamedWorkspace(BaseModel):
    workspace_id: str = Field(description="never changes: name it in X-Shortlink-Workspace")
    name: str
    role: Role = Field(description="the caller's role in it")
