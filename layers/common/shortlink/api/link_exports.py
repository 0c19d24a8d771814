"""The export route of the API's transfer function: all of a key's links (JSON, CSV) or their
daily clicks (stats-csv), read page by page."""

from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Query

from shortlink.access.api_keys import ADMIN, LINKS_READ, STATS_READ
from shortlink.api.errors import error_response, missing_scope
from shortlink.api.files import CSV_MEDIA_TYPE, TEXT, file_response, file_route
from shortlink.api.link_presentation import link_view
from shortlink.api.requests import api_request
from shortlink.api.responses import ExportedLinks
from shortlink.clicks.stats import stats_range
from shortlink.schemas.links import Moment
from shortlink.transfer.exports import (
    MAX_EXPORT_LINKS,
    MAX_STATS_EXPORT_LINKS,
    ExportTooLarge,
    links_csv,
    links_json,
    owned_links,
    stats_csv,
)
from shortlink.wiring import addresses, click_stats, importing_links, short_domains

ExportFormat = Literal["json", "csv", "stats-csv"]
EXPORT_FILES = {
    "json": ("links.json", content_types.APPLICATION_JSON),
    "csv": ("links.csv", CSV_MEDIA_TYPE),
    "stats-csv": ("clicks.csv", CSV_MEDIA_TYPE),
}


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the export route to `app` (the transfer function's resolver): its route reads the request `app` answers."""

    names = ("Export all of your links (JSON, CSV) or their daily clicks (stats-csv)", "exportLinks")
    holds = "the links, or a row per link and day with clicks"
    files: dict[str, Any] = {"application/json": ExportedLinks, "text/csv": TEXT}

    @file_route(app, "/links/export", LINKS_READ, names, holds, files, 413)
    def export_links(
        export_format: Annotated[ExportFormat, Query(alias="format")] = "json",
        start: Annotated[
            Moment | None, Query(alias="from", description="stats-csv: inclusive; default 30 days before to")
        ] = None,
        end: Annotated[Moment | None, Query(alias="to", description="stats-csv: exclusive; default now")] = None,
        include: Annotated[
            Literal["password_hash"] | None,
            Query(description="json: the passwords as their hashes (needs the admin scope too)"),
        ] = None,
    ) -> Response[Any]:
        key = api_request(app).actor
        owner = key.owner  # the account's links
        view_of = partial(link_view, api_request(app).host, addresses=addresses(), domains=short_domains())
        stats = export_format == "stats-csv"
        # What an export carries beyond links:read needs its own scope (docs/api.md, Scopes).
        if stats and not key.allows(STATS_READ):
            return missing_scope("GET /links/export?format=stats-csv", STATS_READ)
        if include is not None and not key.allows(ADMIN):
            return missing_scope("GET /links/export?include=password_hash", ADMIN)
        if include is not None and export_format != "json":
            return error_response(422, "invalid_request", "include: password_hash is exported with format=json only")
        span = stats_range(start, end, "day", datetime.now(UTC)) if stats else None
        try:
            links = owned_links(importing_links(), owner, MAX_STATS_EXPORT_LINKS if stats else MAX_EXPORT_LINKS)
        except ExportTooLarge as error:
            return error_response(413, "export_too_large", str(error))
        if span is not None:
            body = stats_csv(links, span, lambda key, first, last: click_stats().days(key, first, last), view_of)
        else:
            with_hashes = include is not None
            body = links_json(links, view_of, with_hashes) if export_format == "json" else links_csv(links, view_of)
        filename, media_type = EXPORT_FILES[export_format]
        return file_response(body, media_type, filename)
