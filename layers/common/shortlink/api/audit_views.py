"""The answers of `GET /audit`: a page of the audit log as JSON or CSV."""

from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types
from pydantic import BaseModel, Field

from shortlink.api.files import CSV_MEDIA_TYPE, file_response
from shortlink.audit.export import entries_csv, entries_json
from shortlink.audit.queries import ExportFormat
from shortlink.audit.trail import AuditPage


class AuditActor(BaseModel):
    kind: str
    id: str
    label: str


class AuditTarget(BaseModel):
    kind: str
    id: str


class AuditPerson(BaseModel):
    """The person a member's entry acted on, as they were then."""

    email: str = Field(description="their email at the time of the action")
    old_role: str | None = Field(description="their role before (null: none, e.g. an invitation)")
    new_role: str | None = Field(description="their role after (null: none, e.g. a removal)")


class AuditEntryView(BaseModel):
    """An entry as the API shows it (shortlink.audit.model.AuditEntry.view)."""

    id: str
    at: str
    workspace: str
    actor: AuditActor
    action: str
    target: AuditTarget
    changed: list[str]
    client: str
    request_id: str
    person: AuditPerson | None = Field(description="member entries: the person acted on; null otherwise")


class AuditEntries(BaseModel):
    entries: list[AuditEntryView]
    next_cursor: str | None


NEXT_CURSOR_HEADER = "X-Next-Cursor"  # a CSV page's cursor (a JSON page carries it in its body)


def audit_answer(page: AuditPage, output: ExportFormat) -> Response[Any]:
    if output == "csv":
        headers = {NEXT_CURSOR_HEADER: page.next_cursor} if page.next_cursor else {}
        return file_response(entries_csv(page.entries), CSV_MEDIA_TYPE, "audit.csv", headers)
    return Response(200, content_types.APPLICATION_JSON, entries_json(page.entries, page.next_cursor))
