"""The raw export routes of the API's transfer function: `POST /clicks/exports` starts writing the
account's rows of the click lake for a range of days (CSV or Parquet), `GET /clicks/exports/{id}`
tells its state and, once done, links to its files (docs/click-lake.md, Raw export)."""

from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from pydantic import BaseModel, ConfigDict, Field

from shortlink.access.api_keys import STATS_READ
from shortlink.api import audit
from shortlink.api.auth import needs
from shortlink.api.errors import error_response
from shortlink.api.requests import api_request
from shortlink.api.responses import BODY_ERRORS, answers, documented
from shortlink.clicks.lake_exports import (
    LINK_SECONDS,
    MAX_EXPORT_DAYS,
    ExportFormat,
    ExportJob,
    ExportState,
    InvalidExport,
    export_request,
)
from shortlink.schemas.links import STRICT_REQUEST
from shortlink.wiring import lake_exports

# Athena's query ids (and the local engine's) are UUIDs.
ExportId = Annotated[str, Path(pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")]
Day = Annotated[str, Field(max_length=10, description="a UTC day, YYYY-MM-DD", examples=["2026-12-01"])]


class ClickExportRequest(BaseModel):
    model_config = STRICT_REQUEST | ConfigDict(
        populate_by_name=True,
        json_schema_extra={"examples": [{"from": "2026-12-01", "to": "2026-12-06", "format": "csv"}]},
    )

    first: Annotated[Day, Field(alias="from", description="the first UTC day, YYYY-MM-DD")]
    last: Annotated[Day, Field(alias="to", description=f"the last UTC day, included; at most {MAX_EXPORT_DAYS} days")]
    form: Annotated[ExportFormat, Field(alias="format", description="csv: one file; parquet: one or more")] = "csv"


class ClickExport(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    export_id: str
    state: ExportState
    first: Annotated[str, Field(alias="from")]
    last: Annotated[str, Field(alias="to")]
    form: Annotated[ExportFormat, Field(alias="format")]
    files: Annotated[
        list[str],
        Field(description=f"once succeeded: a download link per file, valid {LINK_SECONDS} s from this answer"),
    ]
    reason: Annotated[str, Field(description="why it failed; empty otherwise")]

    @classmethod
    def of(cls, job: ExportJob) -> "ClickExport":
        request = job.request
        return cls(
            export_id=job.export_id,
            state=job.state,
            first=request.first,
            last=request.last,
            form=request.form,
            files=list(job.files),
            reason=job.reason,
        )


NO_LAKE = "this stack has no click lake (it is deployed with EnableClickLake=true)"
START_ANSWERS = documented(
    answers(202, "the export started: read its state at Location", ClickExport, 404, *BODY_ERRORS),
    e404=NO_LAKE,
)
STATE_ANSWERS = documented(
    answers(200, "the export's state, and its files once done", ClickExport, 404),
    e404="no such export of this account, or no click lake",
)


def _answer(status: int, job: ExportJob, headers: dict[str, str] | None = None) -> Response[Any]:
    body = ClickExport.of(job).model_dump_json(by_alias=True)
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body, headers=headers)


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the export routes to `app` (the transfer function's resolver)."""

    @app.post(
        "/clicks/exports",
        summary="Export your raw clicks of a range of days (CSV, Parquet) from the click lake",
        operation_id="startClickExport",
        responses=START_ANSWERS,
        security=needs(STATS_READ),
    )
    def start_export(request: Annotated[ClickExportRequest, Body()]) -> Response[Any]:
        """Every counted click of your links, one row each (docs/click-lake.md, What a row holds)."""
        exports = lake_exports()
        if exports is None:
            return error_response(404, "no_click_lake", NO_LAKE)
        try:
            asked = export_request(request.first, request.last, request.form, datetime.now(UTC).date())
        except InvalidExport as error:
            return error_response(422, "invalid_request", str(error))
        job = exports.start(api_request(app).actor.owner, asked)
        audit.record(app, "export.started", job.export_id, asked.audited())
        return _answer(202, job, {"Location": f"/clicks/exports/{job.export_id}"})

    @app.get(
        "/clicks/exports/<export_id>",
        summary="Read a raw export's state, and its download links once done",
        operation_id="getClickExport",
        responses=STATE_ANSWERS,
        security=needs(STATS_READ),
    )
    def export_state(export_id: ExportId) -> Response[Any]:
        exports = lake_exports()
        job = exports.job(api_request(app).actor.owner, export_id) if exports is not None else None
        if job is None:
            return error_response(404, "not_found", f"no export with id {export_id}")
        return _answer(200, job)
