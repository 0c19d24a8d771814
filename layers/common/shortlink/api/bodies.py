"""The API door's request bodies: their size limits, the body as sent (base64 undone), a file
as it is, and JSON read strictly (UTF-8, standard JSON only, an object at the top)."""

import base64
import json
from typing import Any, NoReturn

from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

MAX_BODY_BYTES = 16 * 1024
# A bulk create carries up to 100 links of up to 2,048-character URLs.
BULK_PATH_SUFFIX = "/links/bulk"
MAX_BULK_BODY_BYTES = 256 * 1024
# POST /links/import takes a file as it is (CSV, SQL, JSON: any media type), up to 1 MiB.
IMPORT_PATH_SUFFIX = "/links/import"
MAX_IMPORT_BODY_BYTES = 1024 * 1024
# A QR style carries a logo of up to 64 KB in base64 (about 87 KB).
QR_STYLE_PATH_SUFFIX = "/qr-style"
MAX_QR_STYLE_BODY_BYTES = 96 * 1024
JSON_MEDIA_TYPE = "application/json"
# No field takes a number this long; longer ones would also hit Python's int-string limit.
MAX_INTEGER_DIGITS = 20


def body_limit(path: str) -> int:
    """How many bytes the body of a request to `path` may hold."""
    if path.endswith(IMPORT_PATH_SUFFIX):
        return MAX_IMPORT_BODY_BYTES
    if path.endswith(QR_STYLE_PATH_SUFFIX):
        return MAX_QR_STYLE_BODY_BYTES
    return MAX_BULK_BODY_BYTES if path.endswith(BULK_PATH_SUFFIX) else MAX_BODY_BYTES


def takes_file(path: str) -> bool:
    """Whether the route of `path` takes a file as it is (any media type), not JSON."""
    return path.endswith(IMPORT_PATH_SUFFIX)


def body_bytes(event: APIGatewayProxyEventV2) -> bytes | None:
    """The request body as sent (API Gateway base64-encodes non-text bodies); None if it claims
    base64 and is not."""
    body = event.body or ""
    if not event.is_base64_encoded:
        return body.encode()
    try:
        return base64.b64decode(body, validate=True)
    except ValueError:  # binascii.Error, or a character outside ASCII
        return None


def is_json_media_type(content_type: str | None) -> bool:
    """`application/json`, in any case, with no charset or UTF-8 (the only one JSON allows)."""
    media_type, *parameters = (content_type or "").split(";")
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return media_type.strip().lower() == JSON_MEDIA_TYPE


def _refuse_body(message: str) -> NoReturn:
    raise RequestValidationError([{"type": "body_invalid", "loc": ("body",), "msg": message}])


def file_body(event: APIGatewayProxyEventV2) -> bytes:
    """The body of a route that takes a file, as sent; 422 if it claims base64 and is not."""
    body = body_bytes(event)
    if body is None:
        _refuse_body("request body is not valid base64")
    return body


def _bounded_int(digits: str) -> int | float:
    # A float is refused by every integer field (strict), and by none of the free-form ones.
    return int(digits) if len(digits.lstrip("-")) <= MAX_INTEGER_DIGITS else float(digits)


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not JSON")


def json_object_body(event: APIGatewayProxyEventV2) -> dict[str, Any]:
    """The body as a JSON object, read strictly: UTF-8, standard JSON only, an object at the top."""
    body = body_bytes(event)
    if body is None:
        _refuse_body("request body is not valid base64")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        _refuse_body("request body must be UTF-8 encoded JSON")
    try:
        document = json.loads(text, parse_int=_bounded_int, parse_constant=_not_json)
    except ValueError:
        _refuse_body("request body must be a JSON object")
    if not isinstance(document, dict):
        _refuse_body("request body must be a JSON object")
    return document
