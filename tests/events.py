"""API Gateway HTTP API (payload 2.0) events for calling handlers directly in tests.

The local stack builds these with SAM CLI's own event constructor; tests that call a
handler without HTTP build the same shape here.
"""

import base64
import json
from typing import Any
from urllib.parse import urlencode

# A person's browser, as the stats count visitors (a bare word such as "pytest" is a bot's).
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"


def http_event(
    method: str,
    path: str,
    *,
    route: str | None = None,
    path_parameters: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    body: Any = None,
    base64_body: bool = False,
    source_ip: str = "203.0.113.9",
    query: dict[str, str] | None = None,
) -> dict[str, Any]:
    raw = body if isinstance(body, str) or body is None else json.dumps(body)
    all_headers = {"host": "sho.rt", "user-agent": BROWSER}
    if body is not None:
        all_headers["content-type"] = "application/json"
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    if base64_body and raw is not None:
        raw = base64.b64encode(raw.encode()).decode()
    return {
        "version": "2.0",
        "routeKey": f"{method} {route or path}",
        "rawPath": path,
        "rawQueryString": urlencode(query or {}),
        **({"queryStringParameters": query} if query else {}),
        "headers": all_headers,
        "pathParameters": path_parameters or {},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api",
            "domainName": "sho.rt",
            "domainPrefix": "sho",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": source_ip, "userAgent": "t"},
            "requestId": "req",
            "routeKey": f"{method} {route or path}",
            "stage": "$default",
            "time": "01/Jan/2026:00:00:00 +0000",
            "timeEpoch": 1767225600000,
        },
        "body": raw,
        "isBase64Encoded": base64_body,
    }


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}
