"""The audit log as files: CSV (a row per entry, every text cell safe to open in a spreadsheet)
and JSON (the entries as the API shows them)."""

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import astuple

from shortlink.audit.model import AuditEntry
from shortlink.clicks.stats import spreadsheet_cell

CSV_COLUMNS = (
    "id",
    "at",
    "workspace",
    "actor_kind",
    "actor_id",
    "actor_label",
    "action",
    "target_kind",
    "target_id",
    "changed",
    "client",
    "request_id",
    "person_email",
    "old_role",
    "new_role",
)


def entries_csv(entries: Iterable[AuditEntry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        view = entry.view()
        row = (
            view["id"],
            view["at"],
            entry.workspace,
            entry.actor.kind,
            entry.actor.id,
            entry.actor.label,
            entry.action,
            entry.target.kind,
            entry.target.id,
            " ".join(entry.changed),
            entry.client,
            entry.request_id,
            *(astuple(entry.person) if entry.person is not None else ("", "", "")),
        )
        writer.writerow([spreadsheet_cell(str(cell)) for cell in row])
    return out.getvalue()


def entries_json(entries: Iterable[AuditEntry], next_cursor: str | None) -> str:
    return json.dumps({"entries": [entry.view() for entry in entries], "next_cursor": next_cursor})
