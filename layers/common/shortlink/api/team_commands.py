"""The team commands of an API request (shortlink.commands.team): the composition root's stores,
the caller and the request's origin; invitation links point at the console's page of each."""

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from pydantic import BaseModel

from shortlink.api.audit import request_origin
from shortlink.api.requests import ApiRequest, api_request
from shortlink.commands.team import InvitationLink, TeamCommands
from shortlink.wiring import addresses, audit_recorder, team_stores


def team_commands(app: APIGatewayHttpResolver) -> TeamCommands:
    """The team commands of the request `app` answers, by its caller in their workspace."""
    request = api_request(app)
    now = datetime.now(UTC)
    return TeamCommands(team_stores(), request.actor, request_origin(request, now), audit_recorder(), now)


def invitation_link(request: ApiRequest) -> InvitationLink:
    """The console's page of an invitation's token, at the stack's public address (else this host)."""
    base = addresses().public_base_url or f"https://{request.host}"
    return lambda token: f"{base}/console/invitations/{token}"


def json_answer(status: int, body: BaseModel) -> Response[Any]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body.model_dump_json())
