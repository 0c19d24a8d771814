"""POST /links/bulk/changes (the manage function): one change to up to 50 of a workspace's links,
chosen by code or by filter, all written or none (shortlink.commands.bulk)."""

import json
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body

from shortlink.access.api_keys import LINKS_READ, LINKS_WRITE
from shortlink.api.auth import current_api_key, needs
from shortlink.api.bulk_change_requests import BulkChanged, BulkChangeRequest, BulkRefusedBody, refused_links
from shortlink.api.idempotency import once_per_key
from shortlink.api.link_commands import link_commands
from shortlink.api.link_presentation import requested_key
from shortlink.api.requests import api_request
from shortlink.api.responses import BODY_ERRORS, WRITE_ONLY_ANSWER, answers
from shortlink.commands.bulk import change_links
from shortlink.domains.model import ShortDomains
from shortlink.errors import InvalidLinkOption
from shortlink.links.bulk import MAX_BULK_CHANGES, BulkRefused, selected_keys
from shortlink.wiring import idempotency_store, link_batch, link_domains, link_repository, short_domains


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the bulk change route to `app` (the manage function's resolver)."""

    responses = {**answers(200, "every link, as changed", BulkChanged, *BODY_ERRORS, 409), **WRITE_ONLY_ANSWER}
    responses[422] = {
        "description": BulkRefusedBody.__doc__ or "",
        "content": {"application/json": {"model": BulkRefusedBody}},
    }

    @app.post(
        "/links/bulk/changes",
        summary=f"Change up to {MAX_BULK_CHANGES} links at once: all or none",
        operation_id="changeLinks",
        responses=responses,
        security=needs(LINKS_WRITE),
    )
    def change_many(request: Annotated[BulkChangeRequest, Body()]) -> Response[Any]:
        caller = api_request(app)
        once = once_per_key(caller, request.model_dump(mode="json"), "bulk-change", idempotency_store)
        try:
            answer = changed(request) if once is None else once(lambda: changed(request))
        except BulkRefused as refused:
            return refusal(refused, short_domains())
        if not current_api_key(app).allows(LINKS_READ):
            return Response(status_code=204)
        return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(answer))

    def changed(request: BulkChangeRequest) -> dict[str, Any]:
        caller = api_request(app)
        domains = link_domains(caller.actor.owner)
        if request.links is not None:
            keys = [requested_key(link.code, link.domain, domains) for link in request.links]
        else:
            assert request.filter is not None  # one of the two (the request's validator)
            selection = request.filter.selection(domains)
            keys = selected_keys(link_repository(), caller.actor.owner, selection, deleted=request.action == "restore")
            if not keys:
                raise InvalidLinkOption("filter", "filter: no link matches it")
        batch = link_batch()
        written = change_links(link_commands(caller, batch), batch, keys, request.change(domains))
        return {"changed": len(written), "links": [item.view for item in written]}


def refusal(refused: BulkRefused, domains: ShortDomains) -> Response[Any]:
    """422 naming each refused link: nothing was written."""
    body = {"error": "bulk_refused", "message": str(refused), "refused": refused_links(refused, domains)}
    return Response(status_code=422, content_type=content_types.APPLICATION_JSON, body=json.dumps(body))
