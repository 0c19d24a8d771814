"""How the API shows stats (`GET /links/{code}/stats`, `GET /stats`): the shapes of the reports
shortlink.clicks builds, for the OpenAPI document and the clients generated from it. Strict: a
report that leaves this shape fails the tests that read real answers with these models."""

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from shortlink.clicks.stats import Granularity

# Read from JSON (a datetime from its ISO text), nothing coerced, nothing unknown let through.
STRICT_ANSWER = ConfigDict(extra="forbid", strict=True)
Count = Annotated[int, Field(ge=0)]


class AgentCounts(BaseModel):
    """The clicks per class of agent (shortlink.clicks.agent_classes) over whole UTC days (classes
    are counted per day): over the days they cover they add up to the clicks, and all but `person`
    to the bots."""

    model_config = STRICT_ANSWER

    person: Annotated[int, Field(ge=0, description="people's clicks (`people` over whole days)")]
    crawler: Annotated[int, Field(ge=0, description="search engines' and other crawlers' fetches")]
    previewer: Annotated[
        int, Field(ge=0, description="link previews: chat and social apps, and requests saying `Purpose: preview`")
    ]
    scanner: Annotated[int, Field(ge=0, description="email and security scanners checking the link")]
    monitor: Annotated[int, Field(ge=0, description="uptime monitors, schedulers and feed pollers")]
    library: Annotated[int, Field(ge=0, description="HTTP libraries and command-line tools, and no User-Agent")]
    ai_agent: Annotated[int, Field(ge=0, description="AI assistants, agents and their fetchers")]
    unknown_bot: Annotated[int, Field(ge=0, description="bots counted before clicks carried a class")]


PEOPLE = Field(ge=0, description="the clicks made by people: `clicks` less `bots`")
AGENTS = Field(description="the clicks per class of agent, over the whole UTC days the range touches")


class StatsPoint(BaseModel):
    """One hour or UTC day of the series."""

    model_config = STRICT_ANSWER

    start: datetime
    clicks: Annotated[int, Field(ge=0, description="every follow, bots included")]
    bots: Count
    unique_visitors: Annotated[int, Field(ge=0, description="estimated per UTC day (or hour)")]
    repeat_clicks: Annotated[int, Field(ge=0, description="how many of the clicks were a visitor's repeats")]
    people: Annotated[int, PEOPLE]
    agents: Annotated[
        AgentCounts | None,
        Field(description="the day's clicks per class of agent, on a daily series' points only (its whole UTC day)"),
    ] = None


class TopValue(BaseModel):
    model_config = STRICT_ANSWER

    value: str
    clicks: Count


TopValues = Annotated[list[TopValue], Field(description="the most-clicked values, most first (at most 10)")]


class TopByDimension(BaseModel):
    """The top values of each dimension (shortlink.clicks.events.Dimension names them), counted
    over the whole UTC days the range touches."""

    model_config = STRICT_ANSWER

    country: TopValues
    device: TopValues
    browser: TopValues
    os: TopValues
    referrer: TopValues
    language: TopValues
    campaign: TopValues
    answered: Annotated[
        list[TopValue],
        Field(description="where the clicks were answered: `edge` (at a CloudFront POP) or a region's name"),
    ]


class StatsReport(BaseModel):
    """What a link's and an account's stats share: the range, totals, series and top values."""

    model_config = STRICT_ANSWER | ConfigDict(populate_by_name=True)

    start: Annotated[datetime, Field(alias="from", description="inclusive, on an hour")]
    end: Annotated[datetime, Field(alias="to", description="exclusive, on an hour")]
    granularity: Granularity
    clicks: Annotated[int, Field(ge=0, description="every follow in the range, bots included")]
    bots: Annotated[int, Field(ge=0, description="how many of the clicks were bots")]
    unique_visitors: Annotated[int, Field(ge=0, description="the sum of each UTC day's estimate")]
    repeat_clicks: Annotated[
        int,
        Field(ge=0, description="how many of the clicks followed the same visitor's click of the link within seconds"),
    ]
    people: Annotated[int, PEOPLE]
    agents: Annotated[AgentCounts, AGENTS]
    series: list[StatsPoint]
    top: TopByDimension


class LinkOrphans(BaseModel):
    """Follows of the link that found it not live, per outcome (shortlink.clicks.orphans.LINK_OUTCOMES)."""

    model_config = STRICT_ANSWER

    not_yet_valid: Count
    deleted: Count
    expired: Count
    used_up: Count


class LinkStats(StatsReport):
    code: str
    orphans: LinkOrphans
    classifier_version: Annotated[
        str, Field(description="the bot classifier that counts this link's clicks from now on")
    ]


class TopLink(BaseModel):
    model_config = STRICT_ANSWER

    code: str
    domain: Annotated[str | None, Field(description="its short domain (null on a stack without Domains)")]
    clicks: Count


class AccountStats(StatsReport):
    tag: Annotated[str | None, Field(description="the tag asked for (null: all the account's links)")]
    top_links: Annotated[list[TopLink], Field(description="the most-clicked links, most first (at most 10)")]
