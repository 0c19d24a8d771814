"""Create and edit requests to the link API, sent to the handlers as API Gateway sends them."""

import json
from collections.abc import Callable
from typing import Any

from tests.events import bearer, http_event
from tests.integration.conftest import Stack

Handlers = dict[str, Callable[..., Any]]


def create(aws: Stack, handlers: Handlers, key: str | None = None, **fields: Any) -> tuple[int, Any]:
    """POST /links of `fields` (a landing page unless they name a url), with `key` or a new key:
    the status and the decoded body."""
    body = {"url": "https://example.com/landing", **fields}
    event = http_event("POST", "/links", headers=bearer(key or aws.new_api_key()), body=body)
    response = handlers["CreateFunction"](event)
    return response["statusCode"], json.loads(response["body"])


def patch(handlers: Handlers, key: str, code: str, **fields: Any) -> tuple[int, Any]:
    """PATCH /links/{code} of `fields`: the status and the decoded body."""
    event = http_event(
        "PATCH",
        f"/links/{code}",
        route="/links/{code}",
        path_parameters={"code": code},
        headers=bearer(key),
        body=fields,
    )
    response = handlers["ManageFunction"](event)
    return response["statusCode"], json.loads(response["body"])
