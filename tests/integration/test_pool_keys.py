"""The user pool's keys over real HTTP (adapters/http/jwks.py): read once and kept, read again for
a key not seen yet at most once a minute, and a pool that answers badly is a StorageUnavailable."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from shortlink.adapters.http.jwks import MIN_REFRESH_SECONDS, CachedJwks
from shortlink.errors import StorageUnavailable


class Pool(BaseHTTPRequestHandler):
    reads = 0
    body = json.dumps({"keys": [{"kid": "k1", "kty": "RSA", "n": "AQAB", "e": "AQAB"}]}).encode()
    status = 200

    def do_GET(self) -> None:
        type(self).reads += 1
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def jwks_url() -> Iterator[str]:
    Pool.reads, Pool.status = 0, 200
    Pool.body = json.dumps({"keys": [{"kid": "k1", "kty": "RSA", "n": "AQAB", "e": "AQAB"}]}).encode()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pool)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pool/.well-known/jwks.json"
    server.shutdown()


def test_the_keys_are_read_once_and_again_for_a_new_key_at_most_once_a_minute(jwks_url):
    now = [1000.0]
    keys = CachedJwks(jwks_url, clock=lambda: now[0])
    assert [key["kid"] for key in keys.keys()["keys"]] == ["k1"]
    assert keys.keys()["keys"][0]["kid"] == "k1"
    assert Pool.reads == 1
    for _ in range(50):  # tokens naming made-up keys, all within the minute
        keys.keys(refresh=True)
    assert Pool.reads == 1
    now[0] += MIN_REFRESH_SECONDS
    keys.keys(refresh=True)
    assert Pool.reads == 2


@pytest.mark.parametrize(
    ("status", "body"),
    [(500, b"{}"), (200, b"not json"), (200, b'{"keys": "none"}'), (200, b"[]"), (200, b'{"keys": []}' + b" " * 70000)],
)
def test_a_pool_that_answers_badly_is_unavailable(jwks_url, status, body):
    Pool.status, Pool.body = status, body
    with pytest.raises(StorageUnavailable):
        CachedJwks(jwks_url).keys()


def test_a_pool_that_does_not_answer_is_unavailable():
    with pytest.raises(StorageUnavailable):
        CachedJwks("http://127.0.0.1:9/jwks.json").keys()
