"""The web console under /console: sign in with an API key, then manage that key's links and
read their stats, on server-rendered pages. Its routes, one router per area, call the domain
code directly, as the API's functions do; the API key itself never reaches the browser (see
shortlink.console.sessions)."""

from pathlib import Path
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.console import (
    audit,
    click_exports,
    domains,
    keys,
    link_bulk_changes,
    links,
    members,
    passkey_sign_in,
    password_reset,
    people_sign_in,
    plumbing,
    qr_codes,
    scim_api,
    scim_tokens,
    security,
    sign_in,
    sso,
    sso_setup,
    stats,
    two_step,
    workspace_settings,
    workspaces,
)
from shortlink.console.pages import page
from shortlink.console.plumbing import Refused
from shortlink.web.resolvers import EitherFrontResolver

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}

logger = Logger()
app = EitherFrontResolver()
for area in (
    plumbing,
    sign_in,
    people_sign_in,
    passkey_sign_in,
    password_reset,
    sso,
    links,
    link_bulk_changes,
    qr_codes,
    stats,
    click_exports,
    keys,
    members,
    security,
    two_step,
    audit,
    workspace_settings,
    workspaces,
    domains,
    scim_tokens,
    sso_setup,
    scim_api,
):
    app.include_router(area.router)


# The function's own files (it ships them beside this module), so served here.
@app.get("/console/static/<name>")
def static(name: str) -> Response[Any]:
    asset = STATIC / name
    if name not in {path.name for path in STATIC.iterdir()} or asset.suffix not in STATIC_TYPES:
        raise Refused(404, "no such file")
    # Named by their contents' version (uPlot's) or changed with the console: an hour is safe.
    headers = {"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"}
    return Response(200, STATIC_TYPES[asset.suffix], asset.read_text(), headers=headers, compress=True)


@app.not_found
def no_such_page(_: Exception) -> Response[Any]:
    return page("error.html", 404, message="No such page in the console.")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
