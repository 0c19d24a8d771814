"""Read and management routes for a key's own links, starting with GET /links/{code}/stats."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.http_api import current_api_key, register_error_handlers, require_api_key
from shortlink.links import owned_link
from shortlink.services import click_counter_store, link_repository

logger = Logger(service="shortlink-manage")
app = APIGatewayHttpResolver(enable_validation=True)
app.use(middlewares=[require_api_key])
register_error_handlers(app)


@app.get("/links/<code>/stats")
def link_stats(code: str) -> dict[str, Any]:
    link = owned_link(code, current_api_key(app).key_id, link_repository())
    return {"code": link.code, "clicks": click_counter_store().total_clicks(link.code)}


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
