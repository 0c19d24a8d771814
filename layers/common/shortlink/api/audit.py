"""What the API functions share to record their changes in the audit log: the request's origin
(the calling key or person, its workspace, the client's hashed address, API Gateway's request id) and one
call per change, made after the change is written (a failure to record answers 503)."""

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

from shortlink.api.requests import ApiRequest, api_request
from shortlink.audit.model import Action
from shortlink.audit.recording import RequestOrigin, client_hash, recorded
from shortlink.people.actors import Actor
from shortlink.settings.edge import EdgeSettings
from shortlink.web.addresses import client_ip
from shortlink.wiring import audit_recorder, settings_of, visitor_salt_root


def origin_of(actor: Actor, raw_event: dict[str, Any], request_id: str, at: datetime) -> RequestOrigin:
    """`actor`'s request (`raw_event`, API Gateway's `request_id`), in their workspace: the
    client's address (behind the edge, the viewer's, believed only with the edge's secret) hashed
    with the day's salt."""
    address = client_ip(raw_event, settings_of(EdgeSettings).secret)
    hashed = client_hash(visitor_salt_root(), str(address or ""), at)
    return RequestOrigin(actor.owner, recorded(actor), hashed, request_id)


def request_origin(request: ApiRequest, at: datetime) -> RequestOrigin:
    """The origin of an API request (a key, or a person with the pool's token)."""
    return origin_of(request.actor, request.raw_event, request.request_id, at)


def record(app: APIGatewayHttpResolver, action: Action, target_id: str, changed: Iterable[str] = ()) -> None:
    """One entry of `action` on `target_id` by the request `app` answers; its audit.recorded
    event queued."""
    now = datetime.now(UTC)
    audit_recorder().record([request_origin(api_request(app), now).entry(action, target_id, now, changed)])
