"""POST /links: create a short link for the caller's API key."""

from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field

from shortlink.config import settings
from shortlink.http_api import current_api_key, register_error_handlers, require_api_key
from shortlink.links import create_link
from shortlink.services import code_generator, link_repository
from shortlink.urls import MAX_URL_LENGTH

logger = Logger(service="shortlink-create")
app = APIGatewayHttpResolver(enable_validation=True)
app.use(middlewares=[require_api_key])
register_error_handlers(app)


class CreateLinkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Annotated[str, Field(min_length=1, max_length=MAX_URL_LENGTH, description="absolute http(s) destination")]


class LinkCreated(BaseModel):
    code: str
    short_url: str
    url: str
    created_at: datetime


def public_base_url() -> str:
    configured = settings().public_base_url
    return configured or f"https://{app.current_event.request_context.domain_name}"


@app.post("/links")
def create(request: Annotated[CreateLinkRequest, Body()]) -> Response[Any]:
    owner = current_api_key(app)
    link = create_link(request.url, owner.key_id, code_generator(), link_repository(), datetime.now(UTC))
    logger.info("link created", extra={"code": link.code, "owner": owner.key_id})
    created = LinkCreated(
        code=link.code, short_url=f"{public_base_url()}/{link.code}", url=link.url, created_at=link.created_at
    )
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=created.model_dump_json())


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
