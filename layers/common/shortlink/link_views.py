"""How the API reads and shows a link (create, read, edit, list): the field types requests share,
and one JSON shape for answers."""

from dataclasses import fields
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from shortlink.links import Link
from shortlink.passwords import MAX_LENGTH as MAX_PASSWORD_LENGTH
from shortlink.passwords import MIN_LENGTH as MIN_PASSWORD_LENGTH
from shortlink.urls import MAX_URL_LENGTH

TAG_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
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
Rules = Annotated[
    dict[str, Any],
    Field(description="access lists (allow, deny) and routes; see the README's 'Rules' section"),
]


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
    rules: dict[str, Any] | None

    @classmethod
    def of(cls, link: Link, public_base_url: str) -> "LinkView":
        values = {field.name: getattr(link, field.name) for field in fields(link)}
        values.update(
            short_url=f"{public_base_url}/{link.code}",
            has_password=link.password_hash is not None,
            rules=link.rules.document if link.rules is not None else None,
        )
        del values["password_hash"]
        return cls.model_validate(values)
