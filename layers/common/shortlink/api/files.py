"""Routes that answer with a file (a links export, a QR code, the audit log as CSV): how such a
route is declared and documented, and the response that carries its file."""

from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from pydantic import BaseModel

from shortlink.api.auth import needs
from shortlink.api.responses import content_answer

CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
# The schemas of a file's body in the OpenAPI document: text (CSV, SVG), or bytes (PNG).
TEXT: dict[str, Any] = {"type": "string"}
BINARY: dict[str, Any] = {"type": "string", "format": "binary"}


def file_route(
    app: APIGatewayHttpResolver,
    path: str,
    scope: str,
    names: tuple[str, str],
    holds: str,
    media_types: Mapping[str, dict[str, Any] | type[BaseModel]],
    *errors: int,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`app`'s GET route at `path`, for keys with `scope`, named `names` (its summary and its
    operation id) and answering a file that `holds` what it says, in one of `media_types`."""
    summary, operation_id = names
    responses = content_answer(holds, dict(media_types), *errors)
    return app.get(path, summary=summary, operation_id=operation_id, responses=responses, security=needs(scope))


def file_response(
    body: str | bytes, media_type: str, filename: str = "", headers: Mapping[str, str] | None = None
) -> Response[Any]:
    """200 with `body` as `media_type`, saved as `filename` when there is one; bytes travel as
    base64 (the response validation would read raw bytes as UTF-8)."""
    sent = dict(headers or {})
    if filename:
        sent["Content-Disposition"] = f'attachment; filename="{filename}"'
    if isinstance(body, str):
        return Response(status_code=200, content_type=media_type, body=body, headers=sent)
    import base64

    encoded = Response(status_code=200, content_type=media_type, body=base64.b64encode(body).decode(), headers=sent)
    encoded.base64_encoded = True
    return encoded
