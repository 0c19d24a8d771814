"""The link API as the tests call it: create a link, edit it, follow its code. One client, two ways
to the stack: the handlers themselves, sent the events API Gateway sends (integration tests), or the
local stack over real HTTP (e2e tests)."""

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlencode

from tests.events import bearer, http_event

LANDING_PAGE = "https://example.com/landing"
VISITOR_ADDRESS = "203.0.113.9"


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # names lower-cased
    text: str

    def json(self) -> Any:
        return json.loads(self.text)

    def status_and_json(self) -> tuple[int, Any]:
        return self.status, self.json()


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    route: str  # API Gateway's route: "/links", "/links/{code}", "/{code}"
    path_parameters: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    query: str = ""  # as the visitor wrote it, unparsed
    # What only an event can say (over HTTP the connection says it).
    source_ip: str = VISITOR_ADDRESS
    host: str | None = None  # the API's domain name the request came to
    base64_body: bool = False


Transport = Callable[[Request], Answer]


class Handlers(Protocol):
    def __getitem__(self, function: str) -> Callable[..., Any]: ...


# The functions behind the routes the client calls, as template.yaml routes them.
FUNCTIONS = {"/links": "CreateFunction", "/links/{code}": "ManageFunction", "/{code}": "RedirectFunction"}


def through_handlers(handlers: Handlers) -> Transport:
    """Each request as an API Gateway HTTP API event to the route's handler."""

    def send(request: Request) -> Answer:
        event = http_event(
            request.method,
            request.path,
            route=request.route,
            path_parameters=request.path_parameters,
            headers=request.headers,
            body=request.body,
            source_ip=request.source_ip,
            base64_body=request.base64_body,
        )
        event["rawQueryString"] = request.query
        if request.host is not None:
            event["requestContext"]["domainName"] = request.host
        answer = handlers[FUNCTIONS[request.route]](event)
        body = answer.get("body") or ""
        if answer.get("isBase64Encoded"):
            body = base64.b64decode(body).decode(errors="replace")
        headers = {name.lower(): str(value) for name, value in (answer.get("headers") or {}).items()}
        return Answer(int(answer["statusCode"]), headers, body)

    return send


class HttpStack(Protocol):
    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any: ...


def over_http(stack: HttpStack) -> Transport:
    """Each request over real HTTP to a running stack (tests/e2e/running_stack.py)."""

    def send(request: Request) -> Answer:
        if request.source_ip != VISITOR_ADDRESS or request.host is not None or request.base64_body:
            raise ValueError("over HTTP the connection sets the address, host and encoding, not the test")
        path = f"{request.path}?{request.query}" if request.query else request.path
        answer = stack.request(request.method, path, body=request.body, headers=request.headers)
        return Answer(answer.status, dict(answer.headers), answer.body.decode(errors="replace"))

    return send


class ApiClient:
    """A client of the link API holding one API key (made when first needed) unless told another;
    `visitor_headers` go with every follow (CloudFront's edge secret, say)."""

    def __init__(
        self, transport: Transport, new_key: Callable[[], str], visitor_headers: dict[str, str] | None = None
    ) -> None:
        self._send = transport
        self._new_key = new_key
        self._key: str | None = None
        self._visitor_headers = dict(visitor_headers or {})

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = self._new_key()
        return self._key

    def create(self, key: str | None = None, headers: dict[str, str] | None = None, **fields: Any) -> Answer:
        """POST /links of `fields`, a landing page unless they name a url."""
        body = json.dumps({"url": LANDING_PAGE, **fields})
        sent = {**bearer(key or self.key), "content-type": "application/json", **(headers or {})}
        return self._send(Request("POST", "/links", "/links", headers=sent, body=body))

    def new_link(self, key: str | None = None, **fields: Any) -> dict[str, Any]:
        """The link `create` made: it must have been created."""
        answer = self.create(key, **fields)
        assert answer.status == 201, answer.text
        link: dict[str, Any] = answer.json()
        return link

    def patch(self, code: str, key: str | None = None, **fields: Any) -> Answer:
        """PATCH /links/{code} of `fields`."""
        sent = {**bearer(key or self.key), "content-type": "application/json"}
        request = Request("PATCH", f"/links/{code}", "/links/{code}", {"code": code}, sent, json.dumps(fields))
        return self._send(request)

    def follow(
        self,
        code: str,
        method: str = "GET",
        *,
        query: str = "",
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
        source_ip: str = VISITOR_ADDRESS,
        host: str | None = None,
        base64_body: bool = False,
    ) -> Answer:
        """A visitor's request for /{code}; `form` is posted as the password form is."""
        sent = {**self._visitor_headers, **(headers or {})}
        if form is not None:
            sent["content-type"] = "application/x-www-form-urlencoded"
        request = Request(
            method,
            f"/{code}",
            "/{code}",
            {"code": code},
            sent,
            urlencode(form) if form is not None else None,
            query,
            source_ip,
            host,
            base64_body,
        )
        return self._send(request)
