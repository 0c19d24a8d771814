"""How the API reads and shows a link (create, read, edit, list): the field types requests share,
and one JSON shape for answers."""

import re
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from shortlink import accepted_moments
from shortlink.accepted_moments import in_utc
from shortlink.access.passwords import MAX_LENGTH as MAX_PASSWORD_LENGTH
from shortlink.access.passwords import MIN_LENGTH as MIN_PASSWORD_LENGTH
from shortlink.domains.model import ShortDomains
from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.links.previews import LinkPreview
from shortlink.web.urls import MAX_URL_LENGTH

TAG_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
UNIX_TIME = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# JSON types as documented, nothing coerced ("7" is not 7, 1 is not true); see Moment for dates.
STRICT_REQUEST = ConfigDict(extra="forbid", strict=True)
Url = Annotated[str, Field(min_length=1, max_length=MAX_URL_LENGTH, description="absolute http(s) destination")]
Tag = Annotated[str, Field(pattern=TAG_PATTERN, description="1-32 letters, digits, '_' or '-'")]
Tags = Annotated[list[Tag], Field(max_length=10)]
Title = Annotated[str, Field(max_length=200)]
RedirectType = Literal[301, 302, 307, 308]
MaxClicks = Annotated[int, Field(ge=1, le=1_000_000_000, description="exact follow limit")]
Password = Annotated[
    str,
    Field(
        min_length=MIN_PASSWORD_LENGTH,
        max_length=MAX_PASSWORD_LENGTH,
        description="visitors unlock the link with it; stored only as a PBKDF2 hash",
    ),
]


def _iso_text(value: object) -> object:
    # Not a Unix time, as a number or as text ("0.5"), which pydantic would read as one.
    if not isinstance(value, str) or UNIX_TIME.fullmatch(value.strip()):
        raise ValueError("must be an ISO 8601 date-time string with a time zone")
    return value


def _in_range(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("must carry a time zone (e.g. 2026-12-01T00:00:00Z)")
    if in_utc(moment) is None:
        raise ValueError(f"must be {accepted_moments.RANGE_TEXT}")
    return moment


# Given as a JSON string: the one type strict mode would refuse (it reads Python objects, and
# JSON has no date type), so it is parsed leniently from text only.
Moment = Annotated[
    datetime,
    Field(strict=False, description="ISO 8601 with a time zone (e.g. 2026-12-01T00:00:00Z)"),
    BeforeValidator(_iso_text),
    AfterValidator(_in_range),
]


def _without_null(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    options = schema.pop("anyOf")
    schema.update(next(option for option in options if option.get("type") != "null"))


# An optional field that may be left out but not sent as null: `X | None` to pydantic (so that
# its errors keep plain locations), `X` in the document.
DOCUMENTED_WITHOUT_NULL = Field(json_schema_extra=_without_null)
Rules = Annotated[
    dict[str, Any],
    Field(description="access lists (allow, deny) and routes; see Rules in the documentation's Links and rules page"),
]


MAX_UTM_VALUE_LENGTH = 200  # also the longest campaign GET /links and the console list filter by
UtmValue = Annotated[str, Field(min_length=1, max_length=MAX_UTM_VALUE_LENGTH)]


class SomeFields(BaseModel):
    """An object of optional fields of which at least one must be given (null clears it all)."""

    model_config = STRICT_REQUEST

    @model_validator(mode="after")
    def some_field_given(self) -> "SomeFields":
        if all(value is None for value in self.model_dump().values()):
            raise ValueError(f"give at least one of {', '.join(type(self).model_fields)}")
        return self


class UtmFields(SomeFields):
    """Campaign parameters merged into the destination as utm_source, utm_medium, ..."""

    source: UtmValue | None = None
    medium: UtmValue | None = None
    campaign: UtmValue | None = None
    term: UtmValue | None = None
    content: UtmValue | None = None


class PreviewCard(SomeFields):
    """What link-preview bots show of the link (Open Graph and Twitter tags)."""

    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    description: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    image: Annotated[str, Field(min_length=1, max_length=MAX_URL_LENGTH, description="absolute http(s) URL")] | None = (
        None
    )


ExpiredUrl = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_URL_LENGTH,
        description="where follows go once the link is expired, used up or deleted (instead of 410)",
    ),
]
ForwardQuery = Annotated[bool, Field(description="the visitor's query parameters go on to the destination")]
Crawlable = Annotated[bool, Field(description="search engines may index the link (no noindex, in robots.txt)")]


class DestinationOptions(BaseModel):
    """Where a follow goes and what crawlers and preview bots see: fields a create and an import
    share."""

    model_config = STRICT_REQUEST

    forward_query: ForwardQuery = True
    expired_url: ExpiredUrl | None = None
    crawlable: Crawlable = False
    preview: PreviewCard | None = None
    utm: UtmFields | None = None

    def destination_options(self) -> dict[str, Any]:
        """These fields as LinkOptions takes them (those given)."""
        return {name: value for name, value in link_values(self).items() if name in DestinationOptions.model_fields}


def link_values(request: BaseModel) -> dict[str, Any]:
    """The fields a request gives, as a link holds them (what LinkOptions and LinkChanges take):
    tags a tuple without repeats, a card and campaign fields as LinkPreview and Utm; a null stays
    None. Fields left out are left out, so that each keeps its default."""
    values = request.model_dump(exclude_unset=True)
    if values.get("tags") is not None:
        values["tags"] = tuple(dict.fromkeys(values["tags"]))
    if values.get("preview") is not None:
        values["preview"] = LinkPreview(**values["preview"])
    if values.get("utm") is not None:
        values["utm"] = Utm(**values["utm"])
    return values


def _set_fields(document: type) -> WithJsonSchema:
    """A card's or campaign's fields as a view shows them (`document()`): those that are set, each
    a string; named from the dataclass, so that a field added there is documented too."""
    names = [field.name for field in fields(document)]
    return WithJsonSchema(
        {
            "type": "object",
            "properties": {name: {"type": "string", "minLength": 1} for name in names},
            "additionalProperties": False,
            "minProperties": 1,
        }
    )


class LinkView(BaseModel):
    code: str
    short_url: str
    url: str
    created_at: datetime
    valid_from: datetime | None
    expires_at: datetime | None
    redirect_type: int
    tags: list[str]
    title: str | None
    private: bool
    deleted_at: datetime | None
    max_clicks: int | None
    has_password: bool  # the password itself is never shown, nor its hash
    rules: Rules | None
    forward_query: bool
    expired_url: str | None
    crawlable: bool
    preview: Annotated[dict[str, str], _set_fields(LinkPreview)] | None
    utm: Annotated[dict[str, str], _set_fields(Utm)] | None
    domain: str | None = Field(description="the short domain the link lives on (null on a stack without Domains)")

    @classmethod
    def of(cls, link: Link, public_base_url: str, domain: str | None = None) -> "LinkView":
        values = {field.name: getattr(link, field.name) for field in fields(link)}
        values.update(
            short_url=f"{public_base_url}/{link.code}",
            domain=domain,
            has_password=link.password_hash is not None,
            rules=link.rules.document if link.rules is not None else None,
            preview=link.preview.document() if link.preview is not None else None,
            utm=link.utm.document() if link.utm is not None else None,
        )
        del values["password_hash"]
        return cls.model_validate(values)


@dataclass(frozen=True, slots=True)
class LinkShowing:
    """How a door shows links, read from its request once: the default domain's base URL (the
    stack's public base, or the host the request came in on) and the stack's short domains."""

    default_base: str
    domains: ShortDomains

    def view(self, link: Link) -> LinkView:
        """`link` with its short URL and domain on its own domain."""
        base = self.domains.base_url(link.domain, self.default_base)
        return LinkView.of(link, base, self.domains.public_name(link.domain))

    def shown(self, link: Link) -> dict[str, Any]:
        """The view as an answer and a `link.*` event carry it."""
        return self.view(link).model_dump(mode="json")
