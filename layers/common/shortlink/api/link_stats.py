"""The stats routes of the API's manage function: a link's clicks over time and the account's,
as JSON or CSV."""

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Query

from shortlink.access.api_keys import LINKS_READ, STATS_READ
from shortlink.api.auth import needs
from shortlink.api.link_presentation import requested_key
from shortlink.api.link_requests import DomainQuery
from shortlink.api.requests import api_request
from shortlink.api.responses import content_answer
from shortlink.api.stats_views import AccountStats, LinkStats, StatsReport
from shortlink.clicks.account_stats import account_stats
from shortlink.clicks.bots import classifier_version
from shortlink.clicks.events import Dimension
from shortlink.clicks.stats import Granularity, dimension_csv, link_report, series_csv, span_days, stats_range
from shortlink.errors import InvalidLinkOption
from shortlink.links.use_cases import owned_link
from shortlink.schemas.links import TAG_PATTERN, Moment
from shortlink.wiring import click_stats, link_domains, link_repository, short_domains

# The stats routes' parameters and answers (a link's, the account's).
StatsFrom = Annotated[Moment | None, Query(alias="from", description="inclusive; default: 30 days before to")]
StatsTo = Annotated[Moment | None, Query(alias="to", description="exclusive; default: now")]
StatsFormat = Annotated[Literal["json", "csv"], Query(alias="format")]


def stats_answers(report: type[StatsReport], *errors: int) -> dict[int, Any]:
    description = (
        "the stats (JSON: clicks with bots included, bots, people, the clicks per agent class, repeat_clicks and"
        " unique_visitors, a series, the top values; a link's with the bot classifier's classifier_version), their"
        " series or one dimension's top values (CSV)"
    )
    return content_answer(description, {"application/json": report, "text/csv": {"type": "string"}}, *errors)


def stats_response(
    report: dict[str, Any], output: str, filename: str, dimension: Dimension | None = None
) -> Response[Any]:
    if output == "csv":
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        body = series_csv(report) if dimension is None else dimension_csv(report, dimension)
        return Response(status_code=200, content_type="text/csv; charset=utf-8", body=body, headers=headers)
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=json.dumps(report))


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the stats routes to `app` (the manage function's resolver): its routes read the request `app` answers."""

    @app.get(
        "/links/<code>/stats",
        summary="A link's clicks over time",
        operation_id="linkStats",
        responses=stats_answers(LinkStats, 404),
        security=needs(STATS_READ),
    )
    def link_stats(
        code: str,
        start: StatsFrom = None,
        end: StatsTo = None,
        granularity: Granularity = "day",
        output: StatsFormat = "json",
        domain: DomainQuery = None,
        dimension: Annotated[
            Dimension | None, Query(description="with format=csv: this dimension's top values instead of the series")
        ] = None,
    ) -> Response[Any]:
        """Totals (clicks, bots, people, agents, repeat_clicks, unique_visitors), a time series, the top values of
        each dimension and the bot classifier's version; `?format=csv`: the series
        (`&dimension=campaign`: the top campaigns)."""
        if dimension is not None and output != "csv":
            raise InvalidLinkOption("dimension", "dimension needs format=csv: the JSON holds every dimension")
        span = stats_range(start, end, granularity, datetime.now(UTC))
        owner = api_request(app).actor.owner
        link = owned_link(requested_key(code, domain, link_domains(owner)), owner, link_repository())
        first_day, last_day = span_days(span)
        days = click_stats().days(link.key, first_day, last_day, hourly=span.granularity == "hour")
        # Clicks keep the classification they were counted with: the version says today's.
        report = {**link_report(link.code, days, span), "classifier_version": classifier_version()}
        return stats_response(report, output, f"{link.code}-{dimension or 'stats'}.csv", dimension)

    @app.get(
        "/stats",
        summary="Clicks of all your links, or of one tag's",
        operation_id="accountStats",
        responses=stats_answers(AccountStats),
        security=needs(STATS_READ),
    )
    def all_links_stats(
        start: StatsFrom = None,
        end: StatsTo = None,
        granularity: Granularity = "day",
        output: StatsFormat = "json",
        tag: Annotated[str | None, Query(pattern=TAG_PATTERN, description="only the links with this tag")] = None,
    ) -> Response[Any]:
        """Totals, a time series, the top values of each dimension and the top links of the calling
        key's account's links (counted as they are clicked: the cost does not grow with their
        number); `?format=csv`: the series."""
        span = stats_range(start, end, granularity, datetime.now(UTC))
        report = account_stats(click_stats(), api_request(app).actor.owner, tag, span, short_domains().public_name)
        if not api_request(app).actor.allows(LINKS_READ):
            report["top_links"] = []  # they name codes, a private link's capability: links:read's to read
        filename = f"tag-{tag}-stats.csv" if tag is not None else "stats.csv"
        return stats_response(report, output, filename)
