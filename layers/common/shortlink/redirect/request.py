"""A redirect's request, read once: what every part of the redirect reads, a plain hit's
included, and its click after the response.

The front's event is read through its shape (shortlink.web.events): what every follow reads
when the request is made, as plain attributes (the route, method, code, headers lower-cased
once, query, whether it is a browser's speculative fetch, and the key, which on a stack without
Domains is the code); everything else lazily, each part on first use and then kept: the edge's
secret checked once, the host the request names, the client's address, the visitor the rules
see (and its click records after the response), the posted form. A plain link's hit reads
nothing lazily. Like Dub's middleware `parse` and Shlink's `ShortUrlIdentifier`:
nothing below reads the raw event again.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from shortlink.domains.model import KEY_SEPARATOR, ShortDomains
from shortlink.redirect.routes import LOAD_BALANCER_ROUTES
from shortlink.web.edge import came_through_edge
from shortlink.web.events import EventShape, LoadBalancerShapes, load_balancer_shapes, read_event
from shortlink.web.hosts import request_host

if TYPE_CHECKING:  # the rules' model loads only when a request's visitor or address is read
    from shortlink.rules.model import IpAddress, Visitor

# An unlock form carries one password of at most 128 characters (percent-encoded: 3 bytes each).
MAX_FORM_BYTES = 1024
# A part of the request not read yet (None is an answer: no key, no address, a form too large).
_UNREAD: Any = object()


@dataclass(frozen=True, slots=True)
class RequestReading:
    """What the stack's configuration says about reading a request: the edge's secret (empty
    without an edge: no edge header is believed), the stack's short domains, and a load
    balancer's shapes of the redirect's routes (a front that does not route is matched against them)."""

    edge_secret: str = ""
    domains: ShortDomains = field(default_factory=ShortDomains)
    balancer: LoadBalancerShapes = field(default_factory=lambda: load_balancer_shapes(LOAD_BALANCER_ROUTES))


def _speculative(headers: Mapping[str, str]) -> bool:
    purpose = headers.get("sec-purpose") or headers.get("purpose") or headers.get("x-moz") or ""
    return "prefetch" in purpose or "prerender" in purpose


class RedirectRequest:
    """One request to the redirect, read from a front's `event` against `reading`: `route` (as
    the template names it, "" for none), `method`, `code` (the path's, None on a route that
    names none: a domain's own address), `speculative` and `key` at once, the rest on first use."""

    # What every follow reads, in slots; the lazy parts below go to a dict made only when a
    # request reads one (a plain hit reads none).
    __slots__ = (
        "__dict__",
        "_event",
        "_parameters",
        "_reading",
        "code",
        "front",
        "headers",
        "in_front_shape",
        "key",
        "method",
        "query",
        "route",
        "speculative",
    )
    # Parts not read yet: the class's values until a request reads its own.
    _through_edge: bool | None = None
    _key_prefix: str | None = _UNREAD
    _client_ip: "IpAddress | None" = _UNREAD
    _visitor: "Visitor | None" = None
    _form: dict[str, str] | None = _UNREAD

    front: EventShape
    route: str
    method: str
    # What every request reads, and cheap to read: the headers by lower-case name, whatever the
    # spelling the front passed on; the query as the client sent it ("" without one).
    headers: Mapping[str, str]
    query: str
    code: str | None
    # A browser's prefetch or prerender (Sec-Purpose, or the older Purpose and X-Moz).
    speculative: bool
    # Whether the follow answered in the front's own shape (a cached hit through a load balancer,
    # shortlink.redirect.follows): the door then hands the answer on as it is.
    in_front_shape: bool
    # The key of the code on the request's domain; None on a host that is none of the stack's
    # (or a route without a code). A path that holds the separator (`go.example%2Fpromo`,
    # decoded by API Gateway) gets a key no link has, never another domain's link's.
    key: str | None

    def __init__(self, event: dict[str, Any], reading: RequestReading) -> None:
        # No annotations here: on an attribute they are evaluated at every call.
        self._event = event
        self._reading = reading
        self.front, self.route, self.method, self._parameters, headers, self.query = read_event(event, reading.balancer)
        self.headers = headers
        self.in_front_shape = False
        code = self._parameters.get("code")
        self.code = code
        # What every follow reads, a hit's included: read now, as plain attributes.
        purposed = "sec-purpose" in headers or "purpose" in headers or "x-moz" in headers  # most requests: none
        self.speculative = purposed and _speculative(headers)
        if code is None:
            self.key = None
        elif KEY_SEPARATOR in code:
            self.key = KEY_SEPARATOR + code
        else:  # without Domains a code is its key
            self.key = self._key_of(code) if reading.domains.hosts else code

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

    def path_parameter(self, name: str) -> str:
        """A part of the path the route names ("" when absent)."""
        return str(self._parameters.get(name) or "")

    @property
    def key_prefix(self) -> str | None:
        """The key prefix of the links the request's host serves; None for a host of no domain."""
        if self._key_prefix is _UNREAD:
            domains = self._reading.domains
            headers = self.headers if self.through_edge else {}
            front_host = self.front.front_host(self._event)
            host, own = request_host(headers, self.through_edge, front_host, domains.several)
            self._key_prefix = domains.key_prefix_of_host(host, own)
        return self._key_prefix

    def _key_of(self, code: str) -> str | None:
        domains = self._reading.domains
        if not self._reading.edge_secret:  # the usual case: the front names a domain of ours
            known = domains.prefixes.get(self.front.front_host(self._event)[0])
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
        """The viewer's address (shortlink.web.addresses.viewer_address); None if unreadable."""
        if self._client_ip is _UNREAD:
            from shortlink.web.addresses import viewer_address

            headers = self.headers if self.through_edge else {}
            self._client_ip = viewer_address(self.front.source_ip(self._event), headers, self.through_edge)
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

        raw, encoded = self.front.body(self._event)
        if len(raw) > MAX_FORM_BYTES * 2:
            return None
        data = base64.b64decode(raw) if encoded else raw.encode()
        if len(data) > MAX_FORM_BYTES:
            return None
        fields: dict[str, str] = {}
        for name, value in parse_qsl(data.decode("utf-8", errors="replace"), keep_blank_values=True):
            fields.setdefault(name, value)
        return fields
