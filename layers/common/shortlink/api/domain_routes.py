"""/domains (the manage function): a workspace's own short domains, added, verified through DNS
and removed by its owners and admins (the `admin` scope) through the domain commands, as the
console's Domains page does."""

from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from shortlink.access.api_keys import ADMIN
from shortlink.api.audit import request_origin
from shortlink.api.auth import needs
from shortlink.api.domain_commands import domain_commands_of
from shortlink.api.domain_views import DOMAIN_PATTERN, AddDomainRequest, DomainList, DomainView
from shortlink.api.requests import api_request
from shortlink.api.responses import BODY_ERRORS, answers
from shortlink.api.team_commands import json_answer
from shortlink.commands.domains import DomainCommands
from shortlink.wiring import txt_records

DomainName = Annotated[str, Path(pattern=DOMAIN_PATTERN, description="the domain's name (GET /domains)")]


def domain_commands(app: APIGatewayHttpResolver) -> DomainCommands:
    """The domain commands of the request `app` answers, in its caller's workspace."""
    request, now = api_request(app), datetime.now(UTC)
    return domain_commands_of(request_origin(request, now), request.host, now)


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the domain routes to `app` (the manage function's resolver)."""

    @app.get(
        "/domains",
        summary="List the workspace's own short domains",
        operation_id="listDomains",
        responses=answers(200, "its domains by name, each with the TXT record that verifies it", DomainList),
        security=needs(ADMIN),
    )
    def list_domains() -> dict[str, Any]:
        domains = domain_commands(app).domains()
        return DomainList(domains=[DomainView.of(each) for each in domains]).model_dump(mode="json")

    @app.post(
        "/domains",
        summary="Add a short domain to the workspace: publish its TXT record, then verify it",
        operation_id="addDomain",
        responses=answers(201, "the domain, unverified, and its record", DomainView, 409, *BODY_ERRORS),
        security=needs(ADMIN),
    )
    def add_domain(request: Annotated[AddDomainRequest, Body()]) -> Response[Any]:
        return json_answer(201, DomainView.of(domain_commands(app).add(request.domain)))

    @app.post(
        "/domains/<domain>/verify",
        summary="Verify a domain: its TXT record must hold its token (409 naming the record if not)",
        operation_id="verifyDomain",
        responses=answers(200, "the domain, verified", DomainView, 404, 409),
        security=needs(ADMIN),
    )
    def verify_domain(domain: DomainName) -> Response[Any]:
        return json_answer(200, DomainView.of(domain_commands(app).verify(domain, txt_records())))

    @app.delete(
        "/domains/<domain>",
        summary="Remove a domain from the workspace (refused while live links are on it)",
        operation_id="removeDomain",
        responses=answers(204, "removed: another workspace may claim it", None, 404, 409),
        security=needs(ADMIN),
    )
    def remove_domain(domain: DomainName) -> Response[Any]:
        domain_commands(app).remove(domain)
        return Response(status_code=204)
