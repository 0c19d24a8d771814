"""The user pool's JSON Web Key Set (its public signing keys), read over HTTPS with urllib3 and
kept per environment; read again when a token names a key not in it (the pool rotated), but at
most once a minute: tokens with made-up key ids cannot make us fetch it per request."""

import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from shortlink.errors import StorageUnavailable

TIMEOUT_SECONDS = 3.0
MAX_JWKS_BYTES = 64 * 1024
MIN_REFRESH_SECONDS = 60.0


class CachedJwks:
    def __init__(self, url: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._url = url
        self._clock = clock
        self._document: Mapping[str, Any] | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def keys(self, refresh: bool = False) -> Mapping[str, Any]:
        with self._lock:
            stale = refresh and self._clock() - self._read_at >= MIN_REFRESH_SECONDS
            if self._document is None or stale:
                self._document = self._read()
                self._read_at = self._clock()
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
        try:
            document = json.loads(body)
        except ValueError as error:
            raise StorageUnavailable("the user pool's keys are no JSON") from error
        if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
            raise StorageUnavailable("the user pool's keys are no JWKS document")
        return document
