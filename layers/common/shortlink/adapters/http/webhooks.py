"""HTTP adapter: posts one signed delivery to its endpoint, as a server-side request must.

- The host is resolved here and every address it resolves to is checked at each send (a name
  that pointed at a public address when registered may point at 169.254.169.254 now: DNS
  rebinding); the connection goes to the address checked, with the name for TLS and Host.
- Short timeouts, no redirect followed (a 3xx is a failure), no retry here (the queue retries),
  at most MAX_RESPONSE_BYTES of the answer read.
- The delivery comes signed (shortlink.webhooks.deliveries.signature_headers).
"""

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from shortlink.webhooks.addresses import is_public_address

CONNECT_TIMEOUT_SECONDS = 3.0
READ_TIMEOUT_SECONDS = 5.0
MAX_RESPONSE_BYTES = 1024
USER_AGENT = "Shortlink-Webhooks/1"

Resolver = Callable[[str, int], list[str]]


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the system resolver, as a connection would use)."""
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


@dataclass(frozen=True)
class SendResult:
    ok: bool
    status: int | None  # the HTTP status, None when no answer came
    reason: str  # for logs: why it failed ("" when it did not)


class HttpWebhookSender:
    def __init__(self, allow_loopback: bool = False, resolver: Resolver = resolve) -> None:
        self._allow_loopback = allow_loopback
        self._resolve = resolver

    def _allowed(self, address: str) -> bool:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
        return is_public_address(parsed) or (self._allow_loopback and parsed.is_loopback)

    def send(self, url: str, headers: dict[str, str], body: str) -> SendResult:
        parts = urlsplit(url)
        host = parts.hostname or ""
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        try:
            addresses = self._resolve(host, port)
        except OSError as error:
            return SendResult(False, None, f"host not resolved: {error}")
        refused = [address for address in addresses if not self._allowed(address)]
        if not addresses or refused:
            return SendResult(False, None, "host resolves to an address webhooks may not reach")
        if not https and not self._allow_loopback:
            return SendResult(False, None, "webhooks are sent over https only")
        import urllib3  # only once the address is allowed: nothing is loaded for a refused one

        timeout = urllib3.Timeout(connect=CONNECT_TIMEOUT_SECONDS, read=READ_TIMEOUT_SECONDS)
        pool: urllib3.HTTPConnectionPool
        if https:
            pool = urllib3.HTTPSConnectionPool(
                addresses[0], port, timeout=timeout, retries=False, server_hostname=host, assert_hostname=host
            )
        else:
            pool = urllib3.HTTPConnectionPool(addresses[0], port, timeout=timeout, retries=False)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        all_headers = {
            **headers,
            "host": parts.netloc.rsplit("@", 1)[-1],
            "content-type": "application/json",
            "user-agent": USER_AGENT,
        }
        try:
            with pool:
                response = pool.urlopen(
                    "POST", target, body=body.encode(), headers=all_headers, redirect=False, preload_content=False
                )
                response.read(MAX_RESPONSE_BYTES)  # a little of the answer, never all of it
                response.close()
        except (urllib3.exceptions.HTTPError, OSError) as error:
            return SendResult(False, None, f"no answer: {type(error).__name__}")
        status = int(response.status)
        ok = 200 <= status < 300
        return SendResult(ok, status, "" if ok else f"answered {status}")
