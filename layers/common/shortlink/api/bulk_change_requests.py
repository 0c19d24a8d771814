"""The body of POST /links/bulk/changes and the shapes of its answers, for either door (the API's
manage function, the console's bulk form): the models only, light enough for the console's start."""

from typing import Annotated, Any

from pydantic import BaseModel, Field, model_validator

from shortlink.api.errors import ErrorAnswer, error_answer
from shortlink.api.responses import ErrorBody
from shortlink.domains.model import DomainNames, ShortDomains
from shortlink.links.bulk import MAX_BULK_CHANGES, BulkAction, BulkChange, BulkRefused, LinkFilter
from shortlink.schemas.links import STRICT_REQUEST, LinkView, Moment, Tag, Tags

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

    def selection(self, domains: DomainNames) -> LinkFilter:
        domain = domains.domain_named(self.domain) if self.domain is not None else None
        given = self.model_dump(exclude={"domain"})
        return LinkFilter(**given, domain=domain)


class BulkChangeRequest(BaseModel):
    """`links` or `filter` chooses the links (at most 50); `action` says what happens to each:
    `retag` (`add_tags`, `remove_tags`), `set_expiry` (`expires_at`), `clear_expiry`, `delete`,
    `restore` (a filter then selects deleted links), `move` (`to_domain`: the stack's or the
    workspace's verified domain; at most 25 links, each keeping its code)."""

    model_config = STRICT_REQUEST

    links: Annotated[list[SelectedLink] | None, Field(min_length=1, max_length=MAX_BULK_CHANGES)] = None
    filter: LinkFilterRequest | None = None
    action: BulkAction
    add_tags: Tags = []
    remove_tags: Tags = []
    expires_at: Moment | None = None
    to_domain: Annotated[
        str | None, Field(min_length=1, max_length=260, description="move: the short domain the links go to")
    ] = None

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
        if (self.action == "move") != (self.to_domain is not None):
            raise ValueError("to_domain goes with action move, and only with it")
        return self

    def change(self, domains: DomainNames) -> BulkChange:
        """The change, a move's domain checked against those the workspace may use."""
        domain = domains.domain_named(self.to_domain) if self.to_domain is not None else None
        return BulkChange(self.action, tuple(self.add_tags), tuple(self.remove_tags), self.expires_at, domain)


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


def refused_links(refused: BulkRefused, domains: ShortDomains) -> list[dict[str, Any]]:
    """Each refused link with the answer its own request would get (as RefusedLink)."""
    links = []
    for item in refused.refusals:
        answer = error_answer(item.error) or ErrorAnswer(500, "internal_error", "the link failed unexpectedly")
        shown = {"code": item.code, "domain": domains.public_name(item.domain)}
        links.append({**shown, "status": answer.status, "error": answer.error, "message": answer.message})
    return links
