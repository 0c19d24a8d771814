"""How the API shows a person their workspaces (`GET /people/me`)."""

from pydantic import BaseModel, Field

from shortlink.people.model import Membership, Role
from shortlink.people.roles import scopes_of


class WorkspaceView(BaseModel):
    workspace_id: str = Field(description="name it in X-Shortlink-Workspace to act in it")
    role: Role
    scopes: list[str] = Field(description="what the role may do, as API key scopes")

    @classmethod
    def of(cls, membership: Membership) -> "WorkspaceView":
        return cls(
            workspace_id=membership.workspace_id, role=membership.role, scopes=sorted(scopes_of(membership.role))
        )


class PersonView(BaseModel):
    subject: str = Field(description="the user pool's sub of the person")
    workspaces: list[WorkspaceView]
