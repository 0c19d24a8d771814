"""How the API shows a link (create, read, edit, list): one JSON shape everywhere."""

from dataclasses import asdict
from datetime import datetime

from pydantic import BaseModel

from shortlink.links import Link


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
