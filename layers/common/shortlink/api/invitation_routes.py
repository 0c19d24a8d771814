"""The invitation routes of the API's team function: list, make, send again and revoke a
workspace's invitations (shortlink.commands.team, as the console's Members page)."""

from typing import Annotated, Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from shortlink.access.api_keys import MEMBERS_READ, MEMBERS_WRITE
from shortlink.api.auth import needs
from shortlink.api.requests import api_request
from shortlink.api.responses import BODY_ERRORS, answers
from shortlink.api.team_commands import invitation_link, json_answer, team_commands
from shortlink.api.team_views import (
    INVITATION_ID_PATTERN,
    InvitationList,
    InvitationMadeView,
    InvitationView,
    InviteRequest,
)

logger = Logger()

InvitationId = Annotated[str, Path(pattern=INVITATION_ID_PATTERN, description="the invitation's public id")]
MADE = "`sent`: whether a message carries it; if not, `link` is to pass on (shown this once)"


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the invitation routes to `app` (the team function's resolver)."""

    @app.get(
        "/invitations",
        summary="List the workspace's open invitations",
        operation_id="listInvitations",
        responses=answers(200, "the invitations neither used, revoked nor expired", InvitationList),
        security=needs(MEMBERS_READ),
    )
    def list_invitations() -> dict[str, Any]:
        pending = team_commands(app).pending()
        return InvitationList(invitations=[InvitationView.of(each) for each in pending]).model_dump(mode="json")

    @app.post(
        "/invitations",
        summary="Invite someone by email, as a role whose scopes you hold",
        operation_id="inviteMember",
        responses=answers(201, f"made; {MADE}", InvitationMadeView, *BODY_ERRORS),
        security=needs(MEMBERS_WRITE),
    )
    def invite(request: Annotated[InviteRequest, Body()]) -> Response[Any]:
        made = team_commands(app).invite(request.email, request.role, invitation_link(api_request(app)))
        logger.info("member invited", extra={"invitation_id": made.invitation.invitation_id, "sent": made.sent})
        return json_answer(201, InvitationMadeView.of(made))

    @app.post(
        "/invitations/<invitation_id>/resend",
        summary="Send an open invitation again, with a new link (the old one stops working)",
        operation_id="resendInvitation",
        responses=answers(201, f"the new invitation; {MADE}", InvitationMadeView, 404),
        security=needs(MEMBERS_WRITE),
    )
    def resend(invitation_id: InvitationId) -> Response[Any]:
        made = team_commands(app).resend(invitation_id, invitation_link(api_request(app)))
        logger.info("invitation resent", extra={"invitation_id": made.invitation.invitation_id, "sent": made.sent})
        return json_answer(201, InvitationMadeView.of(made))

    @app.delete(
        "/invitations/<invitation_id>",
        summary="Revoke an open invitation: its link takes no one",
        operation_id="revokeInvitation",
        responses=answers(204, "revoked", None, 404),
        security=needs(MEMBERS_WRITE),
    )
    def revoke(invitation_id: InvitationId) -> Response[Any]:
        team_commands(app).revoke_invitation(invitation_id)
        logger.info("invitation revoked", extra={"invitation_id": invitation_id})
        return Response(status_code=204)
