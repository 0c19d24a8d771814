"""POST /links/bulk/changes (the manage function): one change to up to 50 of a workspace's links,
chosen by code or by filter, all written or none (shortlink.commands.bulk)."""

import json
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body
from pydantic import BaseModel, Field, model_validator

from shortlink.access.api_keys import LINKS_READ, LINKS_WRITE
from shortlink.api.auth import current_api_key, needs
from shortlink.api.errors import ErrorAnswer, error_answer
from shortlink.api.idempotency import once_per_key
from shortlink.api.link_commands import link_commands
from shortlink.api.link_presentation import requested_key
from shortlink.api.requests import api_request
from shortlink.api.responses import BODY_ERRORS, WRITE_ONLY_ANSWER, ErrorBody, answers
from shortlink.commands.bulk import change_links
from shortlink.domains.model import ShortDomains
from shortlink.errors import InvalidLinkOption
from shortlink.links.bulk import MAX_BULK_CHANGES, BulkAction, BulkChange, BulkRefused, LinkFilter, selected_keys
from shortlink.schemas.links import STRICT_REQUEST, LinkView, Moment, Tag, Tags
from shortlink.wiring import idempotency_store, link_batch, link_repository, short_domains

Domain = Annotated[str | None, Field(max_length=260, description="a short domain; default: the stack's first")]


class SelectedLink(BaseModel):
    model_config = STRICT_REQUEST

    code: Annotated[str, Field(min_length=1, max_length=64)]
    domain: Domain = None


class LinkFilterRequest(BaseModel):
    """Every part given must hold; at least one part."""

    model_config = STRICT_REQUEST

    tag: Tag | None = None
    domain: Annotated[str | None, Field(max_length=260, description="only this short domain's links")] = None
    created_from: Annotated[Moment | None, Field(description="created at or after")] = None
    created_before: Annotated[Moment | None, Field(description="created before")] = None
    search: Annotated[str | None, Field(min_length=1, max_length=200, description="in code, title or URL")] = None

    @model_validator(mode="after")
    def names_something(self) -> "LinkFilterRequest":
        if not self.model_fields_set:
            raise ValueError("filter: give at least one of tag, domain, created_from, created_before, search")
        return self

    def selection(self, domains: ShortDomains) -> LinkFilter:
        domain = domains.domain_named(self.domain) if self.domain is not None else None
        given = self.model_dump(exclude={"domain"})
        return LinkFilter(**given, domain=domain)


class BulkChangeRequest(BaseModel):
    """`links` or `filter` chooses the links (at most 50); `action` says what happens to each:
    `retag` (`add_tags`, `remove_tags`), `set_expiry` (`expires_at`), `clear_expiry`, `delete`,
    `restore` (a filter then selects deleted links)."""

    model_config = STRICT_REQUEST

    links: Annotated[list[SelectedLink] | None, Field(min_length=1, max_length=MAX_BULK_CHANGES)] = None
    filter: LinkFilterRequest | None = None
    action: BulkAction
    add_tags: Tags = []
    remove_tags: Tags = []
    expires_at: Moment | None = None

    @model_validator(mode="after")
    def one_selection_and_its_action_fields(self) -> "BulkChangeRequest":
        if (self.links is None) == (self.filter is None):
            raise ValueError("give either links or filter")
        if self.action == "retag" and not (self.add_tags or self.remove_tags):
            raise ValueError("retag: give add_tags, remove_tags or both")
        if self.action != "retag" and (self.add_tags or self.remove_tags):
            raise ValueError("add_tags and remove_tags go only with action retag")
        if (self.action == "set_expiry") != (self.expires_at is not None):
            raise ValueError("expires_at goes with action set_expiry, and only with it")
        return self

    def change(self) -> BulkChange:
        return BulkChange(self.action, tuple(self.add_tags), tuple(self.remove_tags), self.expires_at)


class RefusedLink(BaseModel):
    """A link the change could not be made to, and why (its own request's error)."""

    code: str
    domain: str | None
    status: int
    error: str
    message: str


class BulkRefusedBody(ErrorBody):
    """422: the request is invalid (the message names the field), or `refused` names each link the
    change cannot be made to (`error` is `bulk_refused`): nothing was written."""

    refused: list[RefusedLink] | None = None


class BulkChanged(BaseModel):
    changed: int
    links: list[LinkView]


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
        caller, domains = api_request(app), short_domains()
        if request.links is not None:
            keys = [requested_key(link.code, link.domain, domains) for link in request.links]
        else:
            assert request.filter is not None  # one of the two (the request's validator)
            selection = request.filter.selection(domains)
            keys = selected_keys(link_repository(), caller.actor.owner, selection, deleted=request.action == "restore")
            if not keys:
                raise InvalidLinkOption("filter", "filter: no link matches it")
        batch = link_batch()
        written = change_links(link_commands(caller, batch), batch, keys, request.change())
        return {"changed": len(written), "links": [item.view for item in written]}


def refused_links(refused: BulkRefused, domains: ShortDomains) -> list[dict[str, Any]]:
    """Each refused link with the answer its own request would get (as RefusedLink)."""
    links = []
    for item in refused.refusals:
        answer = error_answer(item.error) or ErrorAnswer(500, "internal_error", "the link failed unexpectedly")
        shown = {"code": item.code, "domain": domains.public_name(item.domain)}
        links.append({**shown, "status": answer.status, "error": answer.error, "message": answer.message})
    return links


def refusal(refused: BulkRefused, domains: ShortDomains) -> Response[Any]:
    """422 naming each refused link: nothing was written."""
    body = {"error": "bulk_refused", "message": str(refused), "refused": refused_links(refused, domains)}
    return Response(status_code=422, content_type=content_types.APPLICATION_JSON, body=json.dumps(body))
