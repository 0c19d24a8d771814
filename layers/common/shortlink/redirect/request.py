"""A redirect's request, read once: what every part of a follow that is not a plain hit reads.

API Gateway's event is read lazily, each part on first use and then kept: the headers
lower-cased once, the edge's secret checked once, the host and the key the request names, the
client's address, the visitor the rules see (and its click records after the response), the
posted form and the query. A plain link's hit is answered before any of it is made
(functions/redirect/app.py); its click makes one after the response. Like Dub's middleware
`parse` and Shlink's `ShortUrlIdentifier`: nothing below reads the raw event again.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from shortlink.domains.model import KEY_SEPARATOR, ShortDomains
from shortlink.redirect.edge import came_through_edge, request_headers
from shortlink.redirect.request_hosts import request_host

if TYPE_CHECKING:  # the rules' model loads only when a request's visitor or address is read
    from shortlink.rules.model import IpAddress, Visitor

# An unlock form carries one password of at most 128 characters (percent-encoded: 3 bytes each).
MAX_FORM_BYTES = 1024
# A part of the request not read yet (None is an answer: no key, no address, a form too large).
_UNREAD: Any = object()


@dataclass(frozen=True, slots=True)
class RequestReading:
    """What the stack's configuration says about reading a request: the edge's secret (empty
    without an edge: no edge header is believed) and the stack's short domains."""

    edge_secret: str = ""
    domains: ShortDomains = field(default_factory=ShortDomains)


class RedirectRequest:
    """One follow's request: `method` and `code` as routed, the rest read from `event` on first
    use, against `reading`."""

    __slots__ = (
        "_client_ip",
        "_event",
        "_form",
        "_headers",
        "_key",
        "_key_prefix",
        "_reading",
        "_through_edge",
        "_visitor",
        "code",
        "method",
    )

    def __init__(self, event: dict[str, Any], method: str, code: str, reading: RequestReading) -> None:
        self._event = event
        self.method = method
        self.code = code
        self._reading = reading
        self._headers: Mapping[str, str] | None = None
        self._through_edge: bool | None = None
        self._key_prefix: str | None = _UNREAD
        self._key: str | None = _UNREAD
        self._client_ip: IpAddress | None = _UNREAD
        self._visitor: Visitor | None = None
        self._form: dict[str, str] | None = _UNREAD

    @property
    def headers(self) -> Mapping[str, str]:
        """The request's headers by lower-case name."""
        if self._headers is None:
            self._headers = request_headers(self._event)
        return self._headers

    @property
    def through_edge(self) -> bool:
        """Whether the request carries the edge's secret: only then are the edge's headers believed."""
        if self._through_edge is None:
            secret = self._reading.edge_secret
            self._through_edge = bool(secret) and came_through_edge(self.headers, secret)
        return self._through_edge

    @property
    def user_agent(self) -> str:
        return self.headers.get("user-agent", "")

    @property
    def query(self) -> str:
        """The visitor's query string, as API Gateway passes it on ("" without one)."""
        return str(self._event.get("rawQueryString") or "")

    @property
    def speculative(self) -> bool:
        """A browser's prefetch or prerender (Sec-Purpose, or the older Purpose and X-Moz)."""
        headers = self.headers
        purpose = headers.get("sec-purpose") or headers.get("purpose") or headers.get("x-moz")
        return purpose is not None and ("prefetch" in purpose or "prerender" in purpose)

    def path_parameter(self, name: str) -> str:
        """A part of the path API Gateway named on the route ("" when absent)."""
        return str((self._event.get("pathParameters") or {}).get(name) or "")

    @property
    def key_prefix(self) -> str | None:
        """The key prefix of the links the request's host serves; None for a host of no domain."""
        if self._key_prefix is _UNREAD:
            domains = self._reading.domains
            headers = self.headers if self.through_edge else {}
            context = self._event.get("requestContext") or {}
            host, own = request_host(headers, self.through_edge, context, domains.several)
            self._key_prefix = domains.key_prefix_of_host(host, own)
        return self._key_prefix

    @property
    def key(self) -> str | None:
        """The key of the code on the request's domain; None on a host that is none of the
        stack's. A path that holds the separator (`go.example%2Fpromo`, decoded by API Gateway)
        gets a key no link has, never another domain's link's."""
        if self._key is _UNREAD:
            self._key = self._key_of(self.code)
        return self._key

    def _key_of(self, code: str) -> str | None:
        if KEY_SEPARATOR in code:
            return KEY_SEPARATOR + code
        domains = self._reading.domains
        if not domains.hosts:
            return code
        if not self._reading.edge_secret:  # the usual case: API Gateway names a domain of ours
            known = domains.prefixes.get((self._event.get("requestContext") or {}).get("domainName") or "")
            if known is not None:
                return known + code
        prefix = self.key_prefix
        return None if prefix is None else prefix + code

    @property
    def domain(self) -> str | None:
        """The host name of the request's short domain ("" on a stack without Domains); None on
        a host that is none of the stack's."""
        domains = self._reading.domains
        if not domains.hosts:
            return ""
        prefix = self.key_prefix
        if prefix is None:
            return None
        return prefix.removesuffix(KEY_SEPARATOR) or domains.names[0]

    @property
    def client_ip(self) -> "IpAddress | None":
        """The viewer's address (shortlink.redirect.visitors.viewer_address); None if unreadable."""
        if self._client_ip is _UNREAD:
            from shortlink.redirect.visitors import source_ip, viewer_address

            headers = self.headers if self.through_edge else {}
            self._client_ip = viewer_address(source_ip(self._event), headers, self.through_edge)
        return self._client_ip

    @property
    def visitor(self) -> "Visitor":
        """The visitor as the rules see it, at the moment it is first read."""
        if self._visitor is None:
            from shortlink.redirect.visitors import visitor_of

            self._visitor = visitor_of(self.headers, self.through_edge, self.client_ip, datetime.now(UTC))
        return self._visitor

    @property
    def form(self) -> dict[str, str] | None:
        """The fields of a posted form (first value of each); None when it is too large."""
        if self._form is _UNREAD:
            self._form = self._form_fields()
        return self._form

    def _form_fields(self) -> dict[str, str] | None:
        import base64
        from urllib.parse import parse_qsl

        raw = self._event.get("body") or ""
        if len(raw) > MAX_FORM_BYTES * 2:
            return None
        data = base64.b64decode(raw) if self._event.get("isBase64Encoded") else raw.encode()
        if len(data) > MAX_FORM_BYTES:
            return None
        fields: dict[str, str] = {}
        for name, value in parse_qsl(data.decode("utf-8", errors="replace"), keep_blank_values=True):
            fields.setdefault(name, value)
        return fields
