"""Lambda's Extensions API, as an internal extension (a thread of the runtime process) uses it:
register at init, then ask for each event, which blocks until the next invocation starts."""

import http.client
import json
from typing import Any, Protocol

EXTENSION_NAME = "shortlink-clicks"
EXTENSIONS_API = "/2020-01-01/extension"


class ExtensionsClient(Protocol):
    def register(self) -> None:
        """Register for INVOKE events (internal extensions can have no others)."""

    def next_event(self) -> dict[str, Any]:
        """Block until the next invocation starts; asking also ends the previous one."""


class LambdaExtensionsApi:
    """Lambda's Extensions API over HTTP at AWS_LAMBDA_RUNTIME_API."""

    def __init__(self, runtime_api: str) -> None:
        self._runtime_api = runtime_api
        self._extension_id = ""

    def _request(self, method: str, path: str, body: str | None, headers: dict[str, str]) -> tuple[Any, bytes]:
        connection = http.client.HTTPConnection(self._runtime_api, timeout=None)
        try:
            connection.request(method, EXTENSIONS_API + path, body=body, headers=headers)
            response = connection.getresponse()
            return response, response.read()
        finally:
            connection.close()

    def register(self) -> None:
        response, body = self._request(
            "POST", "/register", json.dumps({"events": ["INVOKE"]}), {"Lambda-Extension-Name": EXTENSION_NAME}
        )
        if response.status != 200:
            raise RuntimeError(f"extension registration failed: {response.status} {body!r}")
        self._extension_id = str(response.getheader("Lambda-Extension-Identifier"))

    def next_event(self) -> dict[str, Any]:
        _, body = self._request("GET", "/event/next", None, {"Lambda-Extension-Identifier": self._extension_id})
        event: dict[str, Any] = json.loads(body)
        return event
