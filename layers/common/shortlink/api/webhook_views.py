"""How the API reads and shows a webhook endpoint: the body that registers one, and its answers."""

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from shortlink.api.link_views import STRICT_REQUEST, Tags, Url
from shortlink.webhooks.model import DEFAULT_EVENT_TYPES, EVENT_TYPES, Endpoint, EventType


class CreateEndpointRequest(BaseModel):
    # The example shows in /docs and starts schemathesis's stateful runs with an endpoint that exists.
    model_config = STRICT_REQUEST | ConfigDict(
        json_schema_extra={"examples": [{"url": "https://hooks.example.com/shortlink", "events": ["link.created"]}]}
    )

    url: Url
    events: Annotated[
        list[EventType],
        Field(
            min_length=1,
            max_length=len(EVENT_TYPES),
            default_factory=lambda: list(DEFAULT_EVENT_TYPES),
            description="default: every event but audit.recorded",
        ),
    ]
    tags: Annotated[Tags, Field(description="only links carrying one of these tags; none: every link")] = []


class EndpointView(BaseModel):
    id: str
    url: str
    events: list[str]
    tags: list[str]
    created_at: datetime
    disabled: bool
    disabled_at: datetime | None
    expires_at: Annotated[
        datetime | None, Field(description="the registering key's expiry: nothing is delivered from then on")
    ] = None

    @classmethod
    def of(cls, endpoint: Endpoint) -> "EndpointView":
        return cls(
            expires_at=endpoint.expires_at,
            id=endpoint.endpoint_id,
            url=endpoint.url,
            events=list(endpoint.events),
            tags=list(endpoint.tags),
            created_at=endpoint.created_at,
            disabled=endpoint.disabled_at is not None,
            disabled_at=endpoint.disabled_at,
        )


class CreatedEndpoint(EndpointView):
    secret: str = Field(description="the signing secret, shown this once")


class EndpointList(BaseModel):
    webhooks: list[EndpointView]
