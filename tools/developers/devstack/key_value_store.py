"""A local CloudFront KeyValueStore: the `cloudfront-keyvaluestore` API (rest-json: DescribeKeyValueStore,
GetKey, ListKeys, PutKey, DeleteKey, UpdateKeys) over HTTP, so that the real boto3 client works
against it with `endpoint_url` (AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE), and with CloudFront's
limits and errors: a key of 1 to 512 bytes, a value of at most 1 KB, 5 MB in all
(ServiceQuotaExceededException), 50 keys per UpdateKeys and no key both put and deleted
(ValidationException), a write whose If-Match is not the store's ETag (ConflictException).
Requests are not authenticated: the signature (SigV4A) is botocore's, checked by AWS only.

What the POPs see is published after a propagation delay, as the edge function's host reads it:
one JSON object {key: value}, written to a temporary file and renamed over `published_path`.
"""

import heapq
import json
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tools.developers.devstack.serving import HOST, ensure_free

logger = logging.getLogger("devstack")

MAX_KEY_BYTES = 512
MAX_VALUE_BYTES = 1024
MAX_STORE_BYTES = 5 * 1024 * 1024
MAX_KEYS_PER_UPDATE = 50
MAX_LIST_RESULTS = 50
PREFIX = "/key-value-stores/"
Answer = tuple[int, dict[str, str], Any]  # status, headers, JSON body
# botocore sends a store's calls to `<account of its ARN>.<endpoint's authority>`: the local
# store's account is 127 and its endpoint's host 0.0.1, so the real client reaches 127.0.0.1.
LOCAL_ACCOUNT = "127"
ENDPOINT_HOST = "0.0.1"


def local_arn(name: str) -> str:
    """The ARN of a local store (named for the stack)."""
    return f"arn:aws:cloudfront::{LOCAL_ACCOUNT}:key-value-store/{uuid.uuid5(uuid.NAMESPACE_URL, name)}"


def client_endpoint(port: int) -> str:
    """The endpoint_url (AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE) that reaches the store on `port`."""
    return f"http://{ENDPOINT_HOST}:{port}"


class StoreError(Exception):
    """An API error as the service names it, with its HTTP status."""

    def __init__(self, code: str, status: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


@dataclass
class LocalStore:
    """One store's entries and ETag; every write is all or nothing under one lock."""

    arn: str
    entries: dict[str, str] = field(default_factory=dict)
    etag: str = field(default_factory=lambda: uuid.uuid4().hex)
    created: float = field(default_factory=time.time)
    modified: float = field(default_factory=time.time)

    def size(self) -> int:
        return sum(len(key.encode()) + len(value.encode()) for key, value in self.entries.items())

    def summary(self) -> dict[str, Any]:
        return {"ItemCount": len(self.entries), "TotalSizeInBytes": self.size()}

    def update(self, if_match: str | None, puts: list[tuple[str, str]], deletes: list[str]) -> None:
        if not if_match:
            raise StoreError("ValidationException", 400, "If-Match is required")
        if if_match != self.etag:
            raise StoreError("ConflictException", 409, "the ETag does not match the store's current version")
        if len(puts) + len(deletes) > MAX_KEYS_PER_UPDATE:
            raise StoreError("ValidationException", 400, f"at most {MAX_KEYS_PER_UPDATE} keys per update")
        put_keys = [key for key, _ in puts]
        if len(set(put_keys)) != len(put_keys) or set(put_keys) & set(deletes) or len(set(deletes)) != len(deletes):
            raise StoreError("ValidationException", 400, "a key appears more than once in the update")
        for key, value in puts:
            check_entry(key, value)
        for key in deletes:
            check_key(key)
        after = {key: value for key, value in self.entries.items() if key not in deletes}
        after.update(puts)
        if sum(len(key.encode()) + len(value.encode()) for key, value in after.items()) > MAX_STORE_BYTES:
            raise StoreError("ServiceQuotaExceededException", 402, "the store would exceed 5 MB")
        self.entries = after
        self.etag = uuid.uuid4().hex
        self.modified = time.time()


def check_key(key: str) -> None:
    if not 0 < len(key.encode()) <= MAX_KEY_BYTES:
        raise StoreError("ValidationException", 400, f"a key must be 1 to {MAX_KEY_BYTES} bytes")


def check_entry(key: str, value: object) -> None:
    check_key(key)
    if not isinstance(value, str) or len(value.encode()) > MAX_VALUE_BYTES:
        raise StoreError("ValidationException", 400, f"a value must be a string of at most {MAX_VALUE_BYTES} bytes")


class Propagation(threading.Thread):
    """Publishes each version of the store `delay_seconds` after it was written, in order."""

    def __init__(self, published_path: Path, delay_seconds: float) -> None:
        super().__init__(name="kvs-propagation", daemon=True)
        self.path = published_path
        self.delay = delay_seconds
        self._due: list[tuple[float, int, dict[str, str]]] = []
        self._sequence = 0
        self._wake = threading.Condition()
        self._stopped = False

    def written(self, entries: dict[str, str]) -> None:
        with self._wake:
            self._sequence += 1
            heapq.heappush(self._due, (time.monotonic() + self.delay, self._sequence, dict(entries)))
            self._wake.notify()

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()

    def run(self) -> None:
        while True:
            with self._wake:
                while not self._stopped and (not self._due or self._due[0][0] > time.monotonic()):
                    self._wake.wait(self._due[0][0] - time.monotonic() if self._due else None)
                if self._stopped:
                    return
                _, _, entries = heapq.heappop(self._due)
            publish(self.path, entries)


def publish(path: Path, entries: dict[str, str]) -> None:
    """Write what the POPs see atomically: a reader sees the old file or the new one, never half."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(entries, separators=(",", ":")))
    os.replace(temporary, path)


class KeyValueStoreService:
    """The stores of the local stack and the HTTP server speaking their API."""

    def __init__(self, published_path: Path, delay_seconds: float) -> None:
        self.stores: dict[str, LocalStore] = {}
        self.lock = threading.Lock()
        self.propagation = Propagation(published_path, delay_seconds)
        self.server: ThreadingHTTPServer | None = None

    def create(self, arn: str) -> LocalStore:
        with self.lock:
            store = self.stores.setdefault(arn, LocalStore(arn))
        publish(self.propagation.path, store.entries)
        return store

    def start(self, port: int = 0) -> str:
        """Serve the API on `port` (0: any free one); the endpoint_url that reaches it."""
        if port:
            ensure_free(port, "the local KeyValueStore needs it: set EDGE_STORE_PORT=<free port>")
        self.server = ThreadingHTTPServer((HOST, port), _handler(self))
        threading.Thread(target=self.server.serve_forever, name="kvs-api", daemon=True).start()
        self.propagation.start()
        return client_endpoint(self.server.server_address[1])

    def stop(self) -> None:
        self.propagation.stop()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def handle(
        self, method: str, raw_path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], Any]:
        """One API call: (status, headers, JSON body)."""
        split = urlsplit(raw_path)
        if not split.path.startswith(PREFIX):
            raise StoreError("ResourceNotFoundException", 404, "no such resource")
        arn, _, rest = split.path[len(PREFIX) :].partition("/")
        with self.lock:
            store = self.stores.get(unquote(arn))
            if store is None:
                raise StoreError("ResourceNotFoundException", 404, "no such key value store")
            before = store.etag
            answer = self._operation(store, method, rest, split.query, headers.get("if-match"), body)
            if store.etag != before:
                self.propagation.written(store.entries)
            return answer

    def _operation(
        self, store: LocalStore, method: str, rest: str, query: str, if_match: str | None, body: bytes
    ) -> "Answer":
        if rest == "" and method == "GET":
            described = {
                **store.summary(),
                "KvsARN": store.arn,
                "Created": store.created,
                "LastModified": store.modified,
                "Status": "READY",
            }
            return 200, {"ETag": store.etag}, described
        if rest == "keys" and method == "GET":
            return 200, {}, _page(store, parse_qs(query))
        if rest == "keys" and method == "POST":
            document = _json(body)
            puts = [(item.get("Key"), item.get("Value")) for item in document.get("Puts") or []]
            deletes = [item.get("Key") for item in document.get("Deletes") or []]
            if not all(isinstance(key, str) for key, _ in puts) or not all(isinstance(key, str) for key in deletes):
                raise StoreError("ValidationException", 400, "every item needs a Key")
            store.update(if_match, puts, deletes)
            return 200, {"ETag": store.etag}, store.summary()
        if not rest.startswith("keys/"):
            raise StoreError("ResourceNotFoundException", 404, "no such resource")
        key = unquote(rest[len("keys/") :])
        if method == "GET":
            if key not in store.entries:
                raise StoreError("ResourceNotFoundException", 404, "no such key")
            return 200, {}, {"Key": key, "Value": store.entries[key], **store.summary()}
        if method == "PUT":
            value = _json(body).get("Value")
            if not isinstance(value, str):
                raise StoreError("ValidationException", 400, "Value must be a string")
            store.update(if_match, [(key, value)], [])
        elif method == "DELETE":
            if key not in store.entries:
                raise StoreError("ResourceNotFoundException", 404, "no such key")
            store.update(if_match, [], [key])
        else:
            raise StoreError("ValidationException", 400, f"{method} is not an operation here")
        return 200, {"ETag": store.etag}, store.summary()


def _json(body: bytes) -> dict[str, Any]:
    try:
        document = json.loads(body or b"{}")
    except ValueError:
        raise StoreError("ValidationException", 400, "the body is not JSON") from None
    if not isinstance(document, dict):
        raise StoreError("ValidationException", 400, "the body must be a JSON object")
    return document


def _page(store: LocalStore, query: dict[str, list[str]]) -> dict[str, Any]:
    keys = sorted(store.entries)
    size_text = (query.get("MaxResults") or [str(MAX_LIST_RESULTS)])[0]
    if not size_text.isascii() or not size_text.isdigit() or not 1 <= int(size_text) <= MAX_LIST_RESULTS:
        raise StoreError("ValidationException", 400, f"MaxResults must be 1 to {MAX_LIST_RESULTS}")
    after = (query.get("NextToken") or [""])[0]
    start = next((index for index, key in enumerate(keys) if key > after), len(keys)) if after else 0
    chosen = keys[start : start + int(size_text)]
    page: dict[str, Any] = {"Items": [{"Key": key, "Value": store.entries[key]} for key in chosen]}
    if start + len(chosen) < len(keys):
        page["NextToken"] = chosen[-1]
    return page


def _handler(service: KeyValueStoreService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                status, extra, document = service.handle(self.command, self.path, headers, body)
            except StoreError as error:
                status, extra, document = error.status, {"x-amzn-ErrorType": error.code}, {"Message": str(error)}
            data = json.dumps(document).encode()
            self.send_response(status)
            for name, value in {**extra, "Content-Type": "application/json", "Content-Length": str(len(data))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("kvs: " + format, *args)

    return Handler
