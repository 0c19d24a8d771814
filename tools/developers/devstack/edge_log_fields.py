"""What the local edge logs of each request it handles: a CloudFront real-time log record's
fields by name (docs: real-time log configuration fields), spelled as CloudFront writes them -
a hyphen for an empty value, header values URL-encoded, the time as epoch seconds with
milliseconds. The local edge hands them to its `on_request` hook (the local stream into ingest).
"""

import time
from typing import Any
from urllib.parse import quote

# x-edge-result-type of a response the viewer-request function generated, and of one from the origin.
FUNCTION_GENERATED = "FunctionGeneratedResponse"
FROM_ORIGIN = "Miss"
# What CloudFront leaves unescaped in a logged header value.
LOG_SAFE = "!$&'()*+,-./:;=@_~"


def logged(value: str) -> str:
    """A value as a log line carries it: URL-encoded, "-" when empty."""
    return quote(value, safe=LOG_SAFE) if value else "-"


def log_fields(event: dict[str, Any], status: int, result_type: str, finished: float | None = None) -> dict[str, str]:
    """The real-time log record of the viewer request `event` (tools.developers.devstack.edge_function's)
    answered with `status`."""
    request = event["request"]
    headers = request["headers"]

    def header(name: str) -> str:
        return str(headers[name]["value"]) if name in headers else ""

    query = "&".join(
        f"{name}={item['value']}"
        for name, field in request["querystring"].items()
        for item in field.get("multiValue") or [field]
    )
    sent = "".join(f"{name}:{header(name)}\n" for name in headers)
    return {
        "timestamp": f"{finished if finished is not None else time.time():.3f}",
        "c-ip": event["viewer"]["ip"] or "-",
        "cs-method": request["method"],
        "cs-host": logged(header("host")),
        "cs-uri-stem": request["uri"],
        "cs-uri-query": query or "-",
        "cs-user-agent": logged(header("user-agent")),
        "cs-referer": logged(header("referer")),
        "x-edge-request-id": event["context"]["requestId"],
        "x-edge-result-type": result_type,
        "sc-status": str(status),
        "c-country": header("cloudfront-viewer-country") or "-",
        "cs-headers": logged(sent),
        "cs-header-names": logged("\n".join(headers)),
        "cs-headers-count": str(len(headers)),
    }
