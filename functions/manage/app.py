"""A key's own links: read, list, edit, delete and restore (their QR codes, stats, bulk changes
and the workspace's own domains: the routers of shortlink.api.link_qr, link_stats,
link_bulk_changes and domain_routes).

Another key's link answers 404, as an unknown code does: a key cannot learn which codes exist.
"""

import json
from typing import Annotated, Any

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BeforeValidator

from shortlink.access.api_keys import LINKS_READ, LINKS_WRITE
from shortlink.api import domain_routes
from shortlink.api import link_bulk_changes as bulk_routes
from shortlink.api import link_qr as qr_routes
from shortlink.api import link_stats as stats_routes
from shortlink.api import qr_style_views as qr_style_routes
from shortlink.api.auth import current_api_key, needs
from shortlink.api.idempotency import IDEMPOTENCY
from shortlink.api.link_commands import link_commands
from shortlink.api.link_presentation import link_view, requested_key
from shortlink.api.link_requests import DomainQuery, EditLinkRequest
from shortlink.api.requests import api_request
from shortlink.api.resolver import api_resolver
from shortlink.api.responses import BODY_ERRORS, CODE_LINKS, WRITE_ONLY_ANSWER, LinkPage, answers
from shortlink.links.model import Link
from shortlink.links.use_cases import owned_link
from shortlink.numbers import ascii_digits_only
from shortlink.schemas.links import MAX_UTM_VALUE_LENGTH, TAG_PATTERN, LinkView
from shortlink.wiring import addresses, api_key_store, link_domains, link_repository, person_access, short_domains

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)


def view(link: Link) -> dict[str, Any]:
    return link_view(api_request(app).host, link, addresses(), short_domains()).model_dump(mode="json")


def stored_key(code: str, domain: str | None) -> str:
    """The key of `code` on the domain `?domain=` names (default: the first)."""
    return requested_key(code, domain, link_domains(owner()))


def written(shown: dict[str, Any]) -> Response[Any]:
    """The answer of a write: the link as it now is to a key that may read it, no body to a
    write-only key (a write tells nothing the key may not read)."""
    if not current_api_key(app).allows(LINKS_READ):
        return Response(status_code=204)
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(shown))


def owner() -> str:
    return current_api_key(app).owner  # the account: each of its keys sees its links


@app.get(
    "/links",
    summary="List your links",
    operation_id="listLinks",
    responses=answers(200, "a page of links, newest first", LinkPage),
    security=needs(LINKS_READ),
)
def list_links(
    limit: Annotated[int, Query(ge=1, le=100), BeforeValidator(ascii_digits_only)] = 25,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
    tag: Annotated[str | None, Query(pattern=TAG_PATTERN)] = None,
    utm_campaign: Annotated[
        str | None, Query(min_length=1, max_length=MAX_UTM_VALUE_LENGTH, description="a campaign's links")
    ] = None,
    domain: Annotated[str | None, Query(max_length=260, description="only this short domain's links")] = None,
) -> dict[str, Any]:
    on_domain = link_domains(owner()).domain_named(domain) if domain is not None else None
    links, next_cursor = link_repository().list_for_owner(
        owner(), limit, cursor, tag, utm_campaign=utm_campaign, domain=on_domain
    )
    return {"links": [view(link) for link in links], "next_cursor": next_cursor}


@app.get(
    "/links/<code>",
    summary="Read a link",
    operation_id="getLink",
    responses=answers(200, "the link", LinkView, 404, links=CODE_LINKS),
    security=needs(LINKS_READ),
)
def get_link(code: str, domain: DomainQuery = None) -> dict[str, Any]:
    return view(owned_link(stored_key(code, domain), owner(), link_repository()))


@app.patch(
    "/links/<code>",
    summary="Edit a link",
    operation_id="editLink",
    responses={**answers(200, "the link as edited", LinkView, *BODY_ERRORS, 404), **WRITE_ONLY_ANSWER},
    security=needs(LINKS_WRITE),
)
def patch_link(code: str, request: Annotated[EditLinkRequest, Body()], domain: DomainQuery = None) -> Response[Any]:
    return written(link_commands(api_request(app)).edit(stored_key(code, domain), request.changes()).view)


@app.delete(
    "/links/<code>",
    summary="Delete a link (soft: it stays readable and can be restored)",
    operation_id="deleteLink",
    responses=answers(204, "deleted", None, 404),
    security=needs(LINKS_WRITE),
)
def remove_link(code: str, domain: DomainQuery = None) -> Response[Any]:
    link_commands(api_request(app)).delete(stored_key(code, domain))
    return Response(status_code=204)  # no body, so no Content-Type either


@app.post(
    "/links/<code>/restore",
    summary="Undo a delete",
    operation_id="restoreLink",
    responses={**answers(200, "the link", LinkView, 404), **WRITE_ONLY_ANSWER},
    security=needs(LINKS_WRITE),
)
def restore(code: str, domain: DomainQuery = None) -> Response[Any]:
    return written(link_commands(api_request(app)).restore(stored_key(code, domain)).view)


# After the routes above: the document lists them in this order.
qr_routes.include_in(app)
qr_style_routes.include_in(app)
stats_routes.include_in(app)
bulk_routes.include_in(app)
domain_routes.include_in(app)


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    IDEMPOTENCY.register_lambda_context(context)
    return app.resolve(event, context)
