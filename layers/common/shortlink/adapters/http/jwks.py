"""The user pool's JSON Web Key Set (its public signing keys), read over HTTPS with urllib3 and
kept per environment; read again when a token names a key not in it (the pool rotated)."""

import json
import threading
from collections.abc import Mapping
from typing import Any

from shortlink.errors import StorageUnavailable

TIMEOUT_SECONDS = 3.0
MAX_JWKS_BYTES = 64 * 1024


class CachedJwks:
    def __init__(self, url: str) -> None:
        self._url = url
        self._document: Mapping[str, Any] | None = None
        self._lock = threading.Lock()

    def keys(self, refresh: bool = False) -> Mapping[str, Any]:
        with self._lock:
            if self._document is None or refresh:
                self._document = self._read()
            return self._document

    def _read(self) -> Mapping[str, Any]:
        import urllib3

        try:
            answer = urllib3.request("GET", self._url, timeout=TIMEOUT_SECONDS, retries=False, preload_content=False)
            body = answer.read(MAX_JWKS_BYTES + 1)
        except urllib3.exceptions.HTTPError as error:
            raise StorageUnavailable(f"the user pool's keys are not readable: {error}") from error
        if answer.status != 200 or len(body) > MAX_JWKS_BYTES:
            raise StorageUnavailable(f"the user pool's keys are not readable: HTTP {answer.status}")
        document = json.loads(body)
        if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
            raise StorageUnavailable("the user pool's keys are no JWKS document")
        return document
