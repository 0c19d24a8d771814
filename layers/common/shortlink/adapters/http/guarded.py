"""HTTP adapter: a request the server itself makes to an address someone else gave (a webhook's
endpoint, an identity provider's discovery document or metadata), guarded as such a request must be.

- The host is resolved here and every address it resolves to is checked at each request (a name
  that pointed at a public address when it was given may point at 169.254.169.254 now: DNS
  rebinding); the connection goes to the address checked, with the name for TLS and Host.
- Short timeouts and a deadline on the whole answer, no redirect followed (a 3xx is the answer),
  no retry, at most `max_bytes` of the answer read.
"""

import ipaddress
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from shortlink.web.outbound_addresses import is_public_address

CONNECT_TIMEOUT_SECONDS = 3.0
READ_TIMEOUT_SECONDS = 5.0
CHUNK_BYTES = 8 * 1024

Resolver = Callable[[str, int], list[str]]
# Why no answer came: the name did not resolve, it resolves to an address the server may not
# reach, the URL is not https, or the connection failed or took too long.
Failure = Literal["unresolved", "inside", "not_https", "no_answer"]


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the system resolver, as a connection would use)."""
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


class Unreachable(Exception):
    """The request was not made, or no answer came: `failure` says why, the message how."""

    def __init__(self, failure: Failure, message: str) -> None:
        super().__init__(message)
        self.failure = failure


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes  # at most max_bytes + 1 bytes: one more than allowed tells the answer was too long


class GuardedHttp:
    def __init__(
        self,
        allow_loopback: bool = False,
        resolver: Resolver = resolve,
        read_timeout: float = READ_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._allow_loopback = allow_loopback
        self._resolve = resolver
        self._read_timeout = read_timeout
        self._clock = clock

    def _allowed(self, address: str) -> bool:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
        return is_public_address(parsed) or (self._allow_loopback and parsed.is_loopback)

    def request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None = None, max_bytes: int = 1024
    ) -> Answer:
        """The answer to one request to `url`, of which at most `max_bytes` (+1) are read; Unreachable
        when it may not be made or no answer came in time."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        try:
            addresses = self._resolve(host, port)
        except OSError as error:
            raise Unreachable("unresolved", f"host not resolved: {error}") from None
        if not addresses or any(not self._allowed(address) for address in addresses):
            raise Unreachable("inside", f"{host} resolves to an address the server may not reach")
        if not https and not self._allow_loopback:
            raise Unreachable("not_https", "only https is allowed")
        import urllib3  # only once the address is allowed: nothing is loaded for a refused one

        timeout = urllib3.Timeout(connect=CONNECT_TIMEOUT_SECONDS, read=self._read_timeout)
        pool: urllib3.HTTPConnectionPool
        if https:
            pool = urllib3.HTTPSConnectionPool(
                addresses[0], port, timeout=timeout, retries=False, server_hostname=host, assert_hostname=host
            )
        else:
            pool = urllib3.HTTPConnectionPool(addresses[0], port, timeout=timeout, retries=False)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        budget = CONNECT_TIMEOUT_SECONDS + self._read_timeout
        deadline = self._clock() + budget
        try:
            with pool:
                response = pool.urlopen(
                    method,
                    target,
                    body=body,
                    headers={**headers, "host": parts.netloc.rsplit("@", 1)[-1]},
                    redirect=False,
                    preload_content=False,
                )
                read = b""
                # A bounded read against a deadline: a server that trickles bytes cannot hold us.
                while len(read) <= max_bytes and (chunk := response.read(min(CHUNK_BYTES, max_bytes + 1 - len(read)))):
                    read += chunk
                    if self._clock() > deadline:
                        raise Unreachable("no_answer", f"{host} took longer than {budget:.0f} s to answer")
                response.close()
        except (urllib3.exceptions.HTTPError, OSError) as error:
            raise Unreachable("no_answer", f"no answer: {type(error).__name__}") from None
        return Answer(int(response.status), read)
