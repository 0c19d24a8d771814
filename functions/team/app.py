"""A workspace's team, managed through the API: its members (listed, given another role,
removed), its invitations (shortlink.api.invitation_routes), its name (owners) and new
workspaces (a person's access token). The console's Members page runs the same team commands
(shortlink.commands.team): the same checks, one audit entry per change."""

from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.access.api_keys import MEMBERS_READ, MEMBERS_WRITE, bearer_token
from shortlink.api import invitation_routes
from shortlink.api.audit import origin_of
from shortlink.api.auth import current_actor, current_person, for_people, needs
from shortlink.api.resolver import api_resolver
from shortlink.api.responses import BODY_ERRORS, answers
from shortlink.api.team_commands import json_answer, team_commands
from shortlink.api.team_views import SUBJECT_PATTERN, MemberList, MemberView, NamedWorkspace, RoleChange, WorkspaceName
from shortlink.commands.team import create_workspace
from shortlink.people.roles import OWNERSHIP
from shortlink.wiring import api_key_store, audit_recorder, person_access, team_stores, user_pool

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)
invitation_routes.include_in(app)

Subject = Annotated[str, Path(pattern=SUBJECT_PATTERN, description="the member's subject (GET /members)")]


@app.get(
    "/members",
    summary="List the workspace's members",
    operation_id="listMembers",
    responses=answers(200, "its members by email, with role, joining and last activity", MemberList),
    security=needs(MEMBERS_READ),
)
def list_members() -> dict[str, Any]:
    return MemberList(members=[MemberView.of(each) for each in team_commands(app).members()]).model_dump(mode="json")


@app.patch(
    "/members/<subject>",
    summary="Give a member another role (one whose scopes you hold; a workspace keeps an owner)",
    operation_id="changeMemberRole",
    responses=answers(204, "changed", None, 404, 409, *BODY_ERRORS),
    security=needs(MEMBERS_WRITE),
)
def change_member_role(subject: Subject, request: Annotated[RoleChange, Body()]) -> Response[Any]:
    changed = team_commands(app).change_role(subject, request.role)
    logger.info("member role changed", extra={"by": current_actor(app).id, "subject": subject, "role": changed.role})
    return Response(status_code=204)


@app.delete(
    "/members/<subject>",
    summary="Remove a member and the keys that act for them (never yourself, never the last owner)",
    operation_id="removeMember",
    responses=answers(204, "removed", None, 404, 409),
    security=needs(MEMBERS_WRITE),
)
def remove_member(subject: Subject) -> Response[Any]:
    removed = team_commands(app).remove(subject)
    logger.info("member removed", extra={"by": current_actor(app).id, "subject": subject, "role": removed.role})
    return Response(status_code=204)


@app.patch(
    "/workspace",
    summary="Rename the workspace (its owners, with their access token)",
    operation_id="renameWorkspace",
    responses=answers(200, "the workspace as it is now", NamedWorkspace, *BODY_ERRORS),
    security=needs(OWNERSHIP),
)
def rename_workspace(request: Annotated[WorkspaceName, Body()]) -> Response[Any]:
    actor = current_actor(app)
    name = team_commands(app).rename(request.name)
    logger.info("workspace renamed", extra={"by": actor.id, "workspace_id": actor.workspace_id})
    return json_answer(200, NamedWorkspace(workspace_id=actor.workspace_id, name=name, role="owner"))


@app.post(
    "/workspaces",
    summary="Create a workspace, whose owner you are (a person's access token)",
    operation_id="createWorkspace",
    responses=answers(201, "the new workspace", NamedWorkspace, *BODY_ERRORS),
    security=for_people(),
)
def new_workspace(request: Annotated[WorkspaceName, Body()]) -> Response[Any]:
    event, now = app.current_event, datetime.now(UTC)
    # The pool's word for who this is and their address (an access token names no address).
    person = user_pool().person_of(bearer_token(event.headers.get("authorization")) or "")
    made, name = create_workspace(
        team_stores(), person, request.name, now,
        lambda actor: origin_of(actor, event.raw_event, event.request_context.request_id or "", now), audit_recorder(),
    )  # fmt: skip
    logger.info("workspace created", extra={"by": current_person(app), "workspace_id": made.workspace_id})
    return json_answer(201, NamedWorkspace(workspace_id=made.workspace_id, name=name, role="owner"))


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
