"""The answers each API route documents, in the shapes it sends them: the OpenAPI document
(`python -m tools.developers.openapi`) is generated from the routes with these."""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel, Field

from shortlink.schemas.links import LinkView


class ErrorBody(BaseModel):
    """Every error the API answers: a stable code and a message naming the problem."""

    error: str
    message: str


class MissingScopeBody(ErrorBody):
    """403: the API key lacks the scope the route needs; `scope` names it."""

    scope: str


class InvalidQueryBody(ErrorBody):
    """400: a query parameter of the audit log is invalid; `parameter` names it."""

    parameter: str


class LinkPage(BaseModel):
    links: list[LinkView]
    next_cursor: str | None


class BulkResult(BaseModel):
    """One link of a bulk create: `link` when created (201), else `error` and `message`."""

    index: int
    status: int
    link: LinkView | None = None
    error: str | None = None
    message: str | None = None


class BulkSummary(BaseModel):
    created: int
    failed: int
    results: list[BulkResult]


class ImportResult(BaseModel):
    """One record of an import: where it is in the file, what became of it, and why."""

    line: int
    status: str  # created, skipped or failed
    code: str | None = None
    url: str | None = None
    error: str | None = None
    message: str | None = None


class ImportSummary(BaseModel):
    created: int
    skipped: int
    failed: int
    results: list[ImportResult]


class ExportedLink(LinkView):
    """A link as the JSON export writes it: its view; with include=password_hash (an admin key)
    its password as its hash (which an import takes back) instead of has_password."""

    # Absent where the hash is given: the view's field made optional, which mypy calls an override.
    has_password: Annotated[bool | None, Field(description="without include=password_hash")] = None  # type: ignore[assignment]
    password_hash: Annotated[
        str | None, Field(description="only with include=password_hash: PBKDF2, as an import takes it back")
    ] = None


class ExportedLinks(BaseModel):
    links: list[ExportedLink]


ERRORS = {
    400: "a query parameter is invalid (the audit log's): the message and `parameter` name it",
    401: "no valid API key: unknown, revoked or expired (checked after the body's size, before anything else)",
    403: "the API key lacks the scope this route needs (checked right after the key)",
    404: "no such link, or not one of this key's",
    409: "the slug, or one that reads the same, is taken; or this Idempotency-Key's first request is running",
    413: "the body is too large",
    415: "the body is not sent as application/json",
    422: "the request is invalid: the message names the field",
    429: "too many creates this minute (Retry-After)",
    503: "storage is busy or no code is free: retry (Retry-After)",
}
# Every API-key route may answer these; routes with a body also 413 and 415.
COMMON_ERRORS = (401, 403, 422, 503)
ERROR_BODIES: dict[int, type[ErrorBody]] = {400: InvalidQueryBody, 403: MissingScopeBody}
BODY_ERRORS = (413, 415)


# Where a link's `code` leads (OpenAPI links): what a client, and schemathesis's stateful
# phase, may do next with a link it was given.
CODE_LINKS = {
    name: {"operationId": operation, "parameters": {"code": "$response.body#/code"}}
    for name, operation in (
        ("Read", "getLink"),
        ("Edit", "editLink"),
        ("QrCode", "linkQrCode"),
        ("Stats", "linkStats"),
        ("Follow", "follow"),
    )
}


def answers(
    status: int, description: str, model: type[BaseModel] | None, *errors: int, links: dict[str, Any] | None = None
) -> dict[int, OpenAPIResponse]:
    """The documented responses of a route: its success (`model` as JSON, or no body, and the
    `links` it leads to) and its errors."""
    success: OpenAPIResponse = {"description": description}
    if links is not None:
        success["links"] = links
    # No model, no body: an empty map, or Powertools would describe the return annotation.
    success["content"] = {"application/json": {"model": model}} if model is not None else {}
    documented: dict[int, OpenAPIResponse] = {status: success}
    for code in sorted({*COMMON_ERRORS, *errors}):
        body = ERROR_BODIES.get(code, ErrorBody)
        documented[code] = {"description": ERRORS[code], "content": {"application/json": {"model": body}}}
    return documented


def content_answer(
    description: str, media_types: dict[str, dict[str, Any] | type[BaseModel]], *errors: int
) -> dict[int, OpenAPIResponse]:
    """A route whose success comes in several media types: each with its model or its schema."""
    documented = answers(200, description, None, *errors)
    documented[200]["content"] = {
        media_type: {"model": shape} if isinstance(shape, type) else {"schema": shape}
        for media_type, shape in media_types.items()
    }
    return documented


# A write's answers: the link (with links:read), or none.
WRITE_ONLY_ANSWER: dict[int, OpenAPIResponse] = {
    204: {"description": "done; no body for a key without links:read", "content": {}}
}


def documented(responses: dict[int, OpenAPIResponse], **descriptions: str) -> dict[int, OpenAPIResponse]:
    """`answers` with this route's own words for its errors (`e404="..."`)."""
    for key, text in descriptions.items():
        responses[int(key.removeprefix("e"))]["description"] = text
    return responses
