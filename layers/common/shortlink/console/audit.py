"""The console's audit log: the workspace's entries (newest first, a page at a time, by kind of
target), their CSV and JSON downloads, a link's own entries for its page, and the recording of
what the console's forms change (one call per change, after it is written)."""

from collections.abc import Iterable
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.api_keys import ADMIN
from shortlink.access.rate_limits import client_block
from shortlink.api.audit import origin_of
from shortlink.audit.export import entries_csv, entries_json
from shortlink.audit.model import TARGET_KINDS, Action
from shortlink.audit.queries import MAX_LIMIT, AuditQuery, InvalidAuditQuery, audit_query
from shortlink.audit.recording import RequestOrigin, client_hash, link_target
from shortlink.audit.security import Failure, failure_entries
from shortlink.console.plumbing import Refused, current_event, now, query, requiring, shown
from shortlink.links.model import Link
from shortlink.people.actors import Actor
from shortlink.settings.edge import EdgeSettings
from shortlink.web.addresses import client_ip
from shortlink.wiring import audit_recorder, audit_trail, memberships, settings_of, visitor_salt_root

PAGE_SIZE = 50
LINK_HISTORY = 20  # a link's page shows its latest entries

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def origin(actor: Actor) -> RequestOrigin:
    """This console request's origin, by `actor` (the session's key or person, or the key a
    failed sign-in named)."""
    event = current_event()
    return origin_of(actor, event.raw_event, event.request_context.request_id or "", now())


def record(actor: Actor, action: Action, target_id: str, changed: Iterable[str] = ()) -> None:
    """One entry of this console request by `actor`; its audit.recorded event queued."""
    at = now()
    audit_recorder().record([origin(actor).entry(action, target_id, at, changed)])


def record_failed_sign_in(email: str, failure: Failure) -> None:
    """A wrong password or code for `email`, in each of its workspaces' logs (shortlink.audit.security):
    at most one entry per workspace, address block and minute; nothing for an address of no member."""
    accounts = memberships().of_email(email)
    if not accounts:
        return
    event, at = current_event(), now()
    address = client_ip(event.raw_event, settings_of(EdgeSettings).secret)
    block = client_hash(visitor_salt_root(), client_block(str(address or "")), at) if address else ""
    trail = audit_trail()
    for entry in failure_entries(accounts, failure, block, event.request_context.request_id or "", at):
        trail.add_once(entry)


def link_history(key: Actor, link: Link) -> list[dict[str, Any]] | None:
    """The link's latest entries for its page, to a session that may read the log (None otherwise)."""
    if not key.allows(ADMIN):
        return None
    found = audit_trail().page(
        key.owner, AuditQuery(target_kind="link", target_id=link_target(link), limit=LINK_HISTORY)
    )
    return [entry.view() for entry in found.entries]


def asked() -> dict[str, str]:
    names = ("since", "until", "target", "cursor")
    return {name: query(name) for name in names if query(name)}


@router.get("/console/audit")
def audit_page() -> Response[Any]:
    current, key = requiring(ADMIN)
    parameters = asked()
    try:
        found = audit_trail().page(key.owner, audit_query({**parameters, "limit": str(PAGE_SIZE)}))
    except InvalidAuditQuery as error:
        raise Refused(400, str(error)) from None
    filters = {name: value for name, value in parameters.items() if name != "cursor"}
    return shown(
        "audit.html",
        key,
        current,
        entries=[entry.view() for entry in found.entries],
        next_cursor=found.next_cursor,
        kinds=TARGET_KINDS,
        chosen=parameters.get("target", ""),
        filters=filters,
    )


@router.get("/console/audit.<file_format>")
def audit_download(file_format: str) -> Response[Any]:
    """The entries the page's filter selects, up to MAX_LIMIT, as a file."""
    _, key = requiring(ADMIN)
    if file_format not in ("csv", "json"):
        raise Refused(404, "the audit log downloads as .csv or .json")
    try:
        found = audit_trail().page(key.owner, audit_query({**asked(), "limit": str(MAX_LIMIT)}))
    except InvalidAuditQuery as error:
        raise Refused(400, str(error)) from None
    headers = {"Content-Disposition": f'attachment; filename="audit.{file_format}"', "Cache-Control": "no-store"}
    if file_format == "csv":
        return Response(200, "text/csv; charset=utf-8", entries_csv(found.entries), headers=headers)
    return Response(
        200, content_types.APPLICATION_JSON, entries_json(found.entries, found.next_cursor), headers=headers
    )
