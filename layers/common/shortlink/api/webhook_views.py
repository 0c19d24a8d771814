"""How the API reads and shows a webhook endpoint: the bodies that register and change one, its
views, and the answers the /webhooks routes document."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shortlink.api.responses import BODY_ERRORS, answers, documented
from shortlink.schemas.links import DOCUMENTED_WITHOUT_NULL, STRICT_REQUEST, Tags, Url
from shortlink.webhooks.endpoints import MAX_ENDPOINTS_PER_ACCOUNT, Endpoint
from shortlink.webhooks.events import DEFAULT_EVENT_TYPES, EVENT_TYPES, EventType


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


class EditEndpointRequest(BaseModel):
    """The fields to change; left out, a field keeps its value."""

    model_config = STRICT_REQUEST | ConfigDict(json_schema_extra={"examples": [{"events": ["link.created"]}]})

    url: Annotated[Url | None, DOCUMENTED_WITHOUT_NULL] = None
    events: Annotated[
        list[EventType] | None, Field(min_length=1, max_length=len(EVENT_TYPES)), DOCUMENTED_WITHOUT_NULL
    ] = None
    tags: Annotated[Tags | None, Field(description="[]: every link again"), DOCUMENTED_WITHOUT_NULL] = None
    enabled: Annotated[
        Literal[True] | None, Field(description="true: deliver again to an endpoint disabled after failures")
    ] = None

    @model_validator(mode="after")
    def changes_something(self) -> "EditEndpointRequest":
        for name in sorted(self.model_fields_set):
            if getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null: leave it out to keep it")
        if not self.model_fields_set:
            raise ValueError("name at least one of url, events, tags or enabled to change")
        return self


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


class RotatedSecret(BaseModel):
    id: str
    secret: str = Field(description="the new signing secret, shown this once")
    previous_secret_valid_until: datetime = Field(
        description="until then every delivery is signed with the old secret too (one signature each)"
    )


class EndpointList(BaseModel):
    webhooks: list[EndpointView]


# The answers of the /webhooks routes, in the words of each.
NOT_OURS = "no such endpoint, or not one of this account's"
CHANGED_MEANWHILE = "the endpoint changed meanwhile (another edit or a new secret): read it and try again"
CREATE_ANSWERS = documented(
    answers(
        201,
        "the endpoint and its signing secret (shown once)",
        CreatedEndpoint,
        *BODY_ERRORS,
        409,
        links={"Delete": {"operationId": "deleteWebhook", "parameters": {"endpoint_id": "$response.body#/id"}}},
    ),
    e409=f"the account has {MAX_ENDPOINTS_PER_ACCOUNT} endpoints already",
)
EDIT_ANSWERS = documented(
    answers(200, "the endpoint as changed", EndpointView, *BODY_ERRORS, 404, 409),
    e404=NOT_OURS,
    e409=CHANGED_MEANWHILE,
)
ROTATE_ANSWERS = documented(
    answers(200, "the new secret, shown this once", RotatedSecret, 404, 409),
    e404=NOT_OURS,
    e409=CHANGED_MEANWHILE,
)
DELETE_ANSWERS = documented(answers(204, "removed", None, 404), e404=NOT_OURS)
LIST_ANSWERS = answers(200, "the account's endpoints, oldest first; a disabled one says so", EndpointList)
