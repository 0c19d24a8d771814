"""An account's API keys, managed by a key with the `admin` scope: create, list, revoke; and
its audit log (who changed what), read by the same keys; and `GET /people/me`, a person's
workspaces (their access token; API Gateway's JWT authorizer).

Keys created here join the caller's account (they work on its links); the admin command is the
root of trust, so revoking the last admin key locks nobody out for good.
"""

import json
from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.access.api_keys import ADMIN, issue_account_key
from shortlink.api import audit
from shortlink.api.audit_views import AuditEntries, audit_answer
from shortlink.api.auth import current_api_key, current_person, for_people, needs
from shortlink.api.files import TEXT, file_route
from shortlink.api.key_views import CreatedKey, CreateKeyRequest, KeyList, KeyView
from shortlink.api.people_views import PersonView, WorkspaceView
from shortlink.api.resolver import api_resolver
from shortlink.api.responses import BODY_ERRORS, answers
from shortlink.audit.queries import audit_query, export_format
from shortlink.errors import ApiKeyNotFound
from shortlink.wiring import api_key_store, audit_trail, memberships, person_access

KEY_ID_PATTERN = r"^[0-9a-f]{12}$"

logger = Logger()
tracer = Tracer()
app = api_resolver(api_key_store, person_access)


@app.post(
    "/keys",
    summary="Create an API key (shown once)",
    operation_id="createKey",
    responses=answers(201, "the key, with its clear text this once", CreatedKey, *BODY_ERRORS),
    security=needs(ADMIN),
)
def create_key(request: Annotated[CreateKeyRequest, Body()]) -> Response[Any]:
    caller = current_api_key(app)
    scopes = frozenset(request.scopes)
    now = datetime.now(UTC)
    key, plaintext = issue_account_key(api_key_store(), caller, request.name, scopes, request.expires_at, now)
    audit.record(app, "key.created", key.key_id)
    logger.info("API key created", extra={"key_id": key.key_id, "by": caller.id, "scopes": sorted(scopes)})
    body = CreatedKey(**KeyView.of(key, now).model_dump(), key=plaintext).model_dump(mode="json")
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=json.dumps(body))


@app.get(
    "/keys",
    summary="List the account's API keys (never a key itself)",
    operation_id="listKeys",
    responses=answers(200, "every key of the account, oldest first", KeyList),
    security=needs(ADMIN),
)
def list_keys() -> dict[str, Any]:
    now = datetime.now(UTC)
    keys = api_key_store().list_keys(owner=current_api_key(app).owner)
    return KeyList(keys=[KeyView.of(key, now) for key in keys]).model_dump(mode="json")


@app.delete(
    "/keys/<key_id>",
    summary="Revoke an API key (at once, for good)",
    operation_id="revokeKey",
    responses=answers(204, "revoked (also when it was already)", None, 404),
    security=needs(ADMIN),
)
def revoke_key(
    key_id: Annotated[str, Path(pattern=KEY_ID_PATTERN, description="the key's public id")],
) -> Response[Any]:
    caller = current_api_key(app)
    if not api_key_store().revoke(key_id, owner=caller.owner):
        raise ApiKeyNotFound(key_id)
    audit.record(app, "key.revoked", key_id)
    logger.info("API key revoked", extra={"key_id": key_id, "by": caller.id})
    return Response(status_code=204)  # no body, so no Content-Type either


# Read as text and parsed by the audit log's own rules (shortlink.audit.queries): 400 naming the parameter.
AuditParameter = Annotated[str | None, Query(max_length=2048)]


@file_route(
    app,
    "/audit",
    ADMIN,
    ("The account's audit log, newest first (JSON or CSV)", "auditLog"),
    "a page of entries (CSV: its next cursor in X-Next-Cursor)",
    {"application/json": AuditEntries, "text/csv": TEXT},
    400,
)
def audit_log(
    output: Annotated[str | None, Query(alias="format", description="json (default) or csv")] = None,
    since: Annotated[str | None, Query(description="inclusive: ISO 8601 with a zone, or epoch milliseconds")] = None,
    until: Annotated[str | None, Query(description="exclusive: ISO 8601 with a zone, or epoch milliseconds")] = None,
    target: Annotated[str | None, Query(description="link, key, webhook, member, setting, session or person")] = None,
    target_id: Annotated[str | None, Query(description="with target: that one's entries (a link's code)")] = None,
    limit: Annotated[str | None, Query(description="entries per page, 1 to 1000 (default 100)")] = None,
    cursor: AuditParameter = None,
) -> Response[Any]:
    asked = {"since": since, "until": until, "target": target, "target_id": target_id, "limit": limit, "cursor": cursor}
    query = audit_query({name: value for name, value in asked.items() if value is not None})
    chosen = export_format(output)
    return audit_answer(audit_trail().page(current_api_key(app).owner, query), chosen)


@app.get(
    "/people/me",
    summary="The workspaces of the person whose access token this is, with their role in each",
    operation_id="getMe",
    responses=answers(200, "the person and their workspaces", PersonView),
    security=for_people(),
)
def me() -> dict[str, Any]:
    subject = current_person(app)
    workspaces = [WorkspaceView.of(each) for each in memberships().of_person(subject)]
    return PersonView(subject=subject, workspaces=workspaces).model_dump(mode="json")


# Each log line carries API Gateway's request id, the id in the access log and the answer.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
