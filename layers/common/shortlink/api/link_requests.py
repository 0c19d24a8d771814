"""The bodies the API's link routes take: create one (`POST /links`), create many
(`POST /links/bulk`) and edit one (`PATCH /links/{code}`)."""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel, ConfigDict, Field, model_validator

from shortlink.domains.model import DomainNames
from shortlink.links.model import LinkChanges, LinkOptions
from shortlink.schemas.links import (
    DOCUMENTED_WITHOUT_NULL,
    STRICT_REQUEST,
    Crawlable,
    DestinationOptions,
    ExpiredUrl,
    ForwardQuery,
    MaxClicks,
    Moment,
    Password,
    PreviewCard,
    RedirectType,
    Rules,
    Tags,
    Title,
    Url,
    UtmFields,
    link_values,
)


class CreateLinkRequest(DestinationOptions):
    # The example shows in /docs and starts schemathesis's stateful runs with a link that exists.
    model_config = STRICT_REQUEST | ConfigDict(
        json_schema_extra={"examples": [{"url": "https://example.com/a/long/page", "tags": ["docs"]}]}
    )

    url: Url
    slug: Annotated[str | None, Field(min_length=1, max_length=64, description="custom code")] = None
    valid_from: Annotated[Moment | None, Field(description="not followable before")] = None
    expires_at: Annotated[Moment | None, Field(description="410 Gone from then on")] = None
    redirect_type: RedirectType = 302
    tags: Tags = []  # noqa: RUF012 - a pydantic model (by DestinationOptions): defaults are copied
    title: Title | None = None
    private: bool = False
    max_clicks: MaxClicks | None = None
    password: Password | None = None
    rules: Rules | None = None
    domain: Annotated[
        str | None, Field(max_length=260, description="one of the stack's short domains; default: the first")
    ] = None

    def options(self, domains: DomainNames) -> LinkOptions:
        """The link's options, on the domain of `domains` it names (InvalidLinkOption for another)."""
        given = {name: value for name, value in link_values(self).items() if name not in ("url", "domain")}
        return LinkOptions(**given, domain=domains.domain_named(self.domain))


MAX_BULK_LINKS = 100
# Each password costs ~0.3 s of hashing: more would not fit in API Gateway's 30 s.
MAX_BULK_PASSWORDS = 5


class BulkCreateRequest(BaseModel):
    model_config = STRICT_REQUEST

    # Validated one by one, so that one bad link gets its own error and the others go on.
    links: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=MAX_BULK_LINKS)]


class EditLinkRequest(BaseModel):
    """The fields to change; `null` removes `valid_from`, `expires_at`, `title`, `max_clicks`,
    `password`, `rules`, `expired_url`, `preview` or `utm`."""

    model_config = STRICT_REQUEST

    # Left out, these keep their value; they cannot be null (the document says so too).
    url: Annotated[Url | None, DOCUMENTED_WITHOUT_NULL] = None
    valid_from: Moment | None = None
    expires_at: Moment | None = None
    redirect_type: Annotated[RedirectType | None, DOCUMENTED_WITHOUT_NULL] = None
    tags: Annotated[Tags | None, DOCUMENTED_WITHOUT_NULL] = None
    title: Title | None = None
    max_clicks: MaxClicks | None = None
    password: Password | None = None
    rules: Rules | None = None
    forward_query: Annotated[ForwardQuery | None, DOCUMENTED_WITHOUT_NULL] = None
    expired_url: ExpiredUrl | None = None
    crawlable: Annotated[Crawlable | None, DOCUMENTED_WITHOUT_NULL] = None
    preview: Annotated[PreviewCard | None, Field(description="replaces the whole card")] = None
    utm: Annotated[UtmFields | None, Field(description="replaces all UTM fields")] = None

    @model_validator(mode="after")
    def only_optional_fields_are_cleared(self) -> "EditLinkRequest":
        for name in sorted(self.model_fields_set - LinkChanges.CLEARABLE):
            if getattr(self, name) is None:
                clearable = ", ".join(sorted(LinkChanges.CLEARABLE))
                raise ValueError(f"{name} cannot be null (only {clearable} can)")
        return self

    def changes(self) -> LinkChanges:
        given = link_values(self)
        cleared = frozenset(name for name, value in given.items() if value is None)  # only CLEARABLE ones (above)
        return LinkChanges(**{name: value for name, value in given.items() if value is not None}, cleared=cleared)


# ?domain= on every route of one link: which domain's link of that code (default: the first).
DomainQuery = Annotated[
    str | None, Query(max_length=260, description="the link's short domain; default: the stack's first")
]
