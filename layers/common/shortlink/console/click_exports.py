"""The console's raw export of the click lake (beside the account overview): a form for a range of
days and a format, and the export's page, which reloads itself while the lake's engine writes the
file and then links to it. The same domain, engine and audit entry as POST /clicks/exports."""

import re
from datetime import timedelta
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.clicks.lake_exports import EXPORT_FORMATS, LINK_SECONDS, MAX_EXPORT_DAYS, InvalidExport, export_request
from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import Refused, now, posted_by_session, requiring, shown
from shortlink.console.sessions import Session
from shortlink.people.actors import Actor
from shortlink.wiring import lake_exports

PATH = "/console/exports"
EXPORT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RELOAD_SECONDS = 3  # the running export's page asks again, no script needed
NO_LAKE = "this stack has no click lake (it is deployed with EnableClickLake=true)"

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def form_page(actor: Actor, current: Session, state: forms.FormState, status: int = 200) -> Response[Any]:
    if not state.values:  # the last 7 days, as CSV
        today = now().date()
        state = forms.FormState({"from": [(today - timedelta(days=6)).isoformat()], "to": [today.isoformat()]})
    lake = lake_exports() is not None
    context = {"form": state, "formats": EXPORT_FORMATS, "max_days": MAX_EXPORT_DAYS, "lake": lake}
    return shown("click_exports.html", actor, current, status, **context)


@router.get(PATH)
def export_form() -> Response[Any]:
    current, actor = requiring("stats:read")
    return form_page(actor, current, forms.FormState())


@router.post(PATH)
def start_export() -> Response[Any]:
    form, current, actor = posted_by_session("stats:read")
    exports = lake_exports()
    if exports is None:
        raise Refused(404, NO_LAKE)
    days = (forms.value(form, "from"), forms.value(form, "to"))
    try:
        asked = export_request(*days, forms.value(form, "format") or "csv", now().date())
    except InvalidExport as error:
        field = str(error).split(":", 1)[0]
        return form_page(actor, current, forms.FormState(form, {field: str(error)}), 422)
    job = exports.start(actor.owner, asked)
    audit.record(actor, "export.started", job.export_id, asked.audited())
    return see_other(f"{PATH}/{job.export_id}")


@router.get(f"{PATH}/<export_id>")
def export_page(export_id: str) -> Response[Any]:
    current, actor = requiring("stats:read")
    exports = lake_exports()
    job = exports.job(actor.owner, export_id) if exports is not None and EXPORT_ID.fullmatch(export_id) else None
    if job is None:
        raise Refused(404, "no such export")
    reload = RELOAD_SECONDS if job.state == "running" else 0
    return shown("click_export.html", actor, current, job=job, reload=reload, link_minutes=LINK_SECONDS // 60)
