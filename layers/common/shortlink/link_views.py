"""How the API reads and shows a link (create, read, edit, list): the field types requests share,
and one JSON shape for answers."""

from dataclasses import asdict
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from shortlink.links import Link
from shortlink.urls import MAX_URL_LENGTH

TAG_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
Url = Annotated[str, Field(min_length=1, max_length=MAX_URL_LENGTH, description="absolute http(s) destination")]
Tag = Annotated[str, Field(pattern=TAG_PATTERN, description="1-32 letters, digits, '_' or '-'")]
Tags = Annotated[list[Tag], Field(max_length=10)]
Title = Annotated[str, Field(max_length=200)]
RedirectType = Literal[301, 302, 307, 308]


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

    @classmethod
    def of(cls, link: Link, public_base_url: str) -> "LinkView":
        return cls.model_validate({**asdict(link), "short_url": f"{public_base_url}/{link.code}"})
