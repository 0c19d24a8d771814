"""HTTP adapter: posts one signed delivery to its endpoint through the server's guarded request
(shortlink.adapters.http.guarded: every address the host resolves to is checked at each send and
the connection goes to the address checked; short timeouts, no redirect followed). No retry here
(the queue retries); at most MAX_RESPONSE_BYTES of the answer read. The delivery comes signed
(shortlink.webhooks.deliveries.signature_headers).
"""

from dataclasses import dataclass

from shortlink.adapters.http.guarded import GuardedHttp, Resolver, Unreachable, resolve

MAX_RESPONSE_BYTES = 1024
USER_AGENT = "Shortlink-Webhooks/1"
# How a refusal before connecting reads in the endpoint's delivery log.
REFUSALS = {
    "inside": "host resolves to an address webhooks may not reach",
    "not_https": "webhooks are sent over https only",
}


@dataclass(frozen=True)
class SendResult:
    ok: bool
    status: int | None  # the HTTP status, None when no answer came
    reason: str  # for logs: why it failed ("" when it did not)


class HttpWebhookSender:
    def __init__(self, allow_loopback: bool = False, resolver: Resolver = resolve) -> None:
        self._http = GuardedHttp(allow_loopback, resolver)

    def send(self, url: str, headers: dict[str, str], body: str) -> SendResult:
        sent = {**headers, "content-type": "application/json", "user-agent": USER_AGENT}
        try:
            answer = self._http.request("POST", url, sent, body.encode(), MAX_RESPONSE_BYTES)
        except Unreachable as error:
            return SendResult(False, None, REFUSALS.get(error.failure, str(error)))
        ok = 200 <= answer.status < 300
        return SendResult(ok, answer.status, "" if ok else f"answered {answer.status}")
