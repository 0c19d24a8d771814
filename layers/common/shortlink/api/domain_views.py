"""How the API reads and shows a workspace's own domains (`/domains`): each with the TXT record
that verifies it."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from shortlink.domains.claims import WorkspaceDomain
from shortlink.domains.names import MAX_TYPED_CHARS
from shortlink.schemas.links import STRICT_REQUEST

DOMAIN_PATTERN = r"^[^/\s]{1,253}$"  # then read as browsers read hosts (shortlink.domains.names)


class VerificationRecord(BaseModel):
    type: Literal["TXT"] = "TXT"
    name: str = Field(description="where to publish it: _shortlink.<domain>")
    value: str = Field(description="what it holds")


class DomainView(BaseModel):
    domain: str = Field(description="the host name, lower case, punycode for a name outside ASCII")
    verified: bool = Field(description="true: links may be created on it and moved to it")
    added_at: datetime
    verified_at: datetime | None
    record: VerificationRecord

    @classmethod
    def of(cls, domain: WorkspaceDomain) -> "DomainView":
        record = VerificationRecord(name=domain.record_name, value=domain.record_value)
        return cls(
            domain=domain.name, verified=domain.verified, added_at=domain.added_at,
            verified_at=domain.verified_at, record=record,
        )  # fmt: skip


class DomainList(BaseModel):
    domains: list[DomainView]


class AddDomainRequest(BaseModel):
    model_config = STRICT_REQUEST

    domain: Annotated[
        str, Field(min_length=1, max_length=MAX_TYPED_CHARS, description="a host name, such as links.example.com")
    ]
