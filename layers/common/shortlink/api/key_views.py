"""How the API reads and shows an API key (`/keys`): never its secret or hash, only its id, but
the clear text once, in the answer that created it."""

from datetime import date, datetime
from typing import Annotated

from pydantic import BaseModel, Field

from shortlink.access.api_keys import MAX_NAME_CHARS, ApiKey, KeyState, Scope
from shortlink.schemas.links import STRICT_REQUEST, Moment


class CreateKeyRequest(BaseModel):
    model_config = STRICT_REQUEST

    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS, description="what the key is for")]
    scopes: Annotated[list[Scope], Field(min_length=1, max_length=6, description="what the key may do")]
    expires_at: Annotated[Moment | None, Field(description="refused (401) from then on")] = None


class MakerView(BaseModel):
    """The person a key acts for: whose removal or departure ends it, whose role caps it."""

    subject: str
    email: str


class KeyView(BaseModel):
    key_id: str
    name: str
    scopes: list[Scope]
    state: KeyState
    created_at: datetime
    expires_at: datetime | None
    last_used_on: date | None  # UTC day
    revoked: bool
    made_by: Annotated[
        MakerView | None, Field(description="the person it acts for; null: nobody (the admin command's keys)")
    ]

    @classmethod
    def of(cls, key: ApiKey, now: datetime) -> "KeyView":
        return cls(
            key_id=key.key_id,
            name=key.name,
            scopes=sorted(key.scopes),  # type: ignore[arg-type]  # ApiKey holds only the six
            state=key.state(now),
            created_at=key.created_at,
            expires_at=key.expires_at,
            last_used_on=key.last_used_on,
            revoked=key.revoked,
            made_by=MakerView(subject=key.maker, email=key.maker_email) if key.maker else None,
        )


class CreatedKey(KeyView):
    key: Annotated[str, Field(description="the key itself: shown this once, never again")]


class KeyList(BaseModel):
    keys: list[KeyView]
