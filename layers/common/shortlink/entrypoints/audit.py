"""What the API functions share to record their changes in the audit log: the request's origin
(the calling key or person, its workspace, the client's hashed address, API Gateway's request id) and one
call per change, made after the change is written (a failure to record answers 503)."""

from collections.abc import Iterable
from datetime import UTC, datetime

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from shortlink.api.auth import current_actor
from shortlink.audit.model import Action
from shortlink.audit.recording import RequestOrigin, client_hash, recorded
from shortlink.people.actors import Actor
from shortlink.redirect.visitors import client_ip
from shortlink.settings.edge import EdgeSettings
from shortlink.webhooks.events import EventMessage
from shortlink.wiring import audit_recorder, settings_of, visitor_salt_root


def origin_of(actor: Actor, event: APIGatewayProxyEventV2, at: datetime) -> RequestOrigin:
    """`actor`'s request `event`, in their workspace: the client's address (behind the edge, the
    viewer's, believed only with the edge's secret) hashed with the day's salt."""
    address = client_ip(event.raw_event, settings_of(EdgeSettings).secret)
    hashed = client_hash(visitor_salt_root(), str(address or ""), at)
    return RequestOrigin(actor.owner, recorded(actor), hashed, event.request_context.request_id or "")


def request_origin(app: APIGatewayHttpResolver, at: datetime) -> RequestOrigin:
    return origin_of(current_actor(app), app.current_event, at)  # a key, or a person with the pool's token


def record(
    app: APIGatewayHttpResolver,
    action: Action,
    target_id: str,
    changed: Iterable[str] = (),
    along: list[EventMessage] | None = None,
) -> None:
    """One entry of `action` on `target_id` by this request; its audit.recorded event is queued
    now, or added to `along`, the webhook events the caller queues (one queue call for all)."""
    now = datetime.now(UTC)
    audit_recorder().record([request_origin(app, now).entry(action, target_id, now, changed)], along)
