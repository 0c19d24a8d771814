"""How a front hands a request to a function: each front's event read into the same parts.

API Gateway's HTTP API sends a payload 2.0 event: the route it matched (`routeKey`), the path's
named parts, headers (lower-cased by API Gateway, but not by `sam local start-api`), the query as
the client sent it, the body (base64 when binary), and its own view of the connection
(`requestContext`). An Application Load Balancer sends a version 1 style event
(`requestContext.elb`): the method and the path as sent, no route (its path is matched against
the function's routes here), query values not decoded, headers, or with multi-value headers
enabled `multiValueHeaders` and `multiValueQueryStringParameters`; the client's address is the
last of X-Forwarded-For, which the load balancer appends. It takes its answer back with a
`statusDescription`, `isBase64Encoded` and, in multi-value mode, `multiValueHeaders`.

A shape reads one kind of event; the request objects (the redirect's shortlink.redirect.request)
ask it for each part on first use, and nothing else reads the raw event.
"""

from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol

from shortlink.web.balancer_answers import (
    LARGE_BODY_CHARS,
    SET_COOKIE,
    STATUS_LINE,
    single_value_cookies,
    status_description,
    within_response_limit,
)

# What every request's reading needs, and is cheap to read: the route as the template names it
# ("GET /{code}", "" for none), the method (upper case), the path's parts the route names
# (decoded), the headers by lower-case name (several values of one name joined by commas) and
# the query as the client sent it, percent-encoded ("" without one). A plain tuple: a hit makes one.
EventParts = tuple[str, str, Mapping[str, str], Mapping[str, str], str]
# The shape an event was read with, then its parts: one flat tuple, unpacked once by the request.
ShapedParts = tuple["EventShape", str, str, Mapping[str, str], Mapping[str, str], str]


class EventShape(Protocol):
    """The parts of a request as one front's event holds them."""

    def read(self, event: dict[str, Any]) -> EventParts:
        """The parts every request's reading needs."""

    def headers(self, event: dict[str, Any]) -> Mapping[str, str]:
        """The headers by lower-case name (several values of one name joined by commas)."""

    def source_ip(self, event: dict[str, Any]) -> str:
        """The address the front saw the request come from (CloudFront's, behind the edge)."""

    def front_host(self, event: dict[str, Any]) -> tuple[str, bool]:
        """The host the front says the request came in on, and whether it is the front's own
        (execute-api) host rather than a custom domain."""

    def body(self, event: dict[str, Any]) -> tuple[str, bool]:
        """The body as the event carries it, and whether that is base64."""

    def response(self, answer: dict[str, Any], method: str) -> dict[str, Any]:
        """`answer` (statusCode, headers, body; an HTTP API answer's isBase64Encoded and cookies)
        as this front takes it back for a `method` request."""

    def http_api_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """The request as API Gateway's HTTP API sends it (payload 2.0), for a resolver that
        reads that shape."""


class HttpApiEvent:
    """API Gateway's HTTP API, payload format 2.0."""

    def read(self, event: dict[str, Any]) -> EventParts:
        return read_event(event)[1:]

    def headers(self, event: dict[str, Any]) -> Mapping[str, str]:
        return read_event(event)[4]

    def source_ip(self, event: dict[str, Any]) -> str:
        return str(((event.get("requestContext") or {}).get("http") or {}).get("sourceIp") or "")

    def front_host(self, event: dict[str, Any]) -> tuple[str, bool]:
        context = event.get("requestContext") or {}
        host = str(context.get("domainName") or "")
        api_id = context.get("apiId") or ""
        return host, bool(api_id) and host.startswith(f"{api_id}.execute-api.")

    def body(self, event: dict[str, Any]) -> tuple[str, bool]:
        return str(event.get("body") or ""), bool(event.get("isBase64Encoded"))

    def response(self, answer: dict[str, Any], method: str) -> dict[str, Any]:
        # HEAD (link checkers, crawlers, `curl -I`): the GET's answer without its body.
        return {**answer, "body": ""} if method == "HEAD" else answer

    def http_api_event(self, event: dict[str, Any]) -> dict[str, Any]:
        return event


HTTP_API = HttpApiEvent()
# The host names of load balancers (a request to one's own name serves the default domain).
LOAD_BALANCER_HOST_SUFFIX = ".elb.amazonaws.com"


class LoadBalancerEvent:
    """An Application Load Balancer's event for a Lambda target; `routes` are the function's
    (as the template names them), `multi_value`: the target group sends multi-value headers."""

    # In slots: a hit reads its routed paths before its response.
    __slots__ = ("_by_method", "multi_value", "routed", "routed_gets")

    def __init__(self, routes: tuple[str, ...], multi_value: bool) -> None:
        self.multi_value = multi_value
        # Per method: the paths without a named part (looked up whole, so "/robots.txt" comes
        # before "/{code}", as API Gateway prefers it), the route of one named part ("/{code}",
        # a follow) and its name, and the others' paths split once.
        self._by_method: dict[
            str, tuple[dict[str, str], tuple[str, str] | None, list[tuple[str, tuple[str, ...]]]]
        ] = {}
        for route in routes:
            method, template = route.split(" ", 1)
            literal, _, templates = self._by_method.setdefault(method, ({}, None, []))
            if "{" not in template:
                literal[template] = route
            elif template.count("/") == 1 and template.startswith("/{"):
                self._by_method[method] = (literal, (route, template[2:-1]), templates)
            else:
                templates.append((route, tuple(template.split("/"))))
        # Per method: the route and named parts of each path matched so far (a link's code is
        # followed again and again), up to ROUTED_PATHS_KEPT of them; read_event looks a hit's up.
        self.routed: dict[str, dict[str, tuple[str, Mapping[str, str]]]] = {method: {} for method in self._by_method}
        self.routed_gets = self.routed.get("GET", {})  # read_event's lookup of a hit's path

    def read(self, event: dict[str, Any]) -> EventParts:
        return self.read_shaped(event)[1:]

    def read_shaped(self, event: dict[str, Any]) -> ShapedParts:
        """This shape and the parts every request reads (read_event), its path routed once."""
        headers, query = self.headers(event), self._query(event)
        method, path = event.get("httpMethod") or "GET", event.get("path") or "/"
        routed = self.routed.get(method)
        if routed is None:
            return self, "", method, {}, headers, query
        known = routed.get(path)
        if known is None:
            if len(routed) >= ROUTED_PATHS_KEPT:
                routed.clear()
            known = routed[path] = self._route(method, path)
        return self, known[0], method, known[1], headers, query

    def _route(self, method: str, path: str) -> tuple[str, Mapping[str, str]]:
        """The route `path` takes for `method` ("" for none) and the parts it names."""
        literal, one_part, templates = self._by_method[method]
        route = literal.get(path)
        if route is not None:
            return route, {}
        if one_part is not None and path.count("/") == 1 and len(path) > 1:
            return one_part[0], {one_part[1]: _decoded(path[1:])}
        return _matched(templates, path.split("/"))

    def headers(self, event: dict[str, Any]) -> Mapping[str, str]:
        if self.multi_value:
            several: Mapping[str, list[str]] = event.get("multiValueHeaders") or {}
            return {name.lower(): ",".join(values) for name, values in several.items()}
        headers: Mapping[str, str] = event.get("headers") or {}
        # The load balancer lower-cases every name; every request names its host, so that name's
        # spelling tells whether an event made elsewhere did too.
        return headers if "host" in headers else {name.lower(): value for name, value in headers.items()}

    def _query(self, event: dict[str, Any]) -> str:
        # Values as the client sent them (not decoded); "?flag" arrives as "flag=".
        if self.multi_value:
            several: Mapping[str, list[str]] = event.get("multiValueQueryStringParameters") or {}
            return "&".join(f"{name}={value}" for name, values in several.items() for value in values)
        single: Mapping[str, str] = event.get("queryStringParameters") or {}
        return "&".join(f"{name}={value}" for name, value in single.items()) if single else ""

    def source_ip(self, event: dict[str, Any]) -> str:
        # The load balancer appends the address it saw; what comes before it is the client's say.
        return self.headers(event).get("x-forwarded-for", "").rpartition(",")[2].strip()

    def front_host(self, event: dict[str, Any]) -> tuple[str, bool]:
        host = self.headers(event).get("host", "")
        name, colon, port = host.rpartition(":")  # Host: name[:port]
        if colon and port.isascii() and port.isdigit():
            host = name
        host = host.removesuffix(".")  # a fully qualified name is the same host
        return host, host.endswith(LOAD_BALANCER_HOST_SUFFIX)

    def body(self, event: dict[str, Any]) -> tuple[str, bool]:
        return str(event.get("body") or ""), bool(event.get("isBase64Encoded"))

    def response(self, answer: dict[str, Any], method: str) -> dict[str, Any]:
        status = answer["statusCode"]
        body = (answer.get("body") or "") if method != "HEAD" else ""
        description = status_description(status)
        headers = answer.get("headers") or {}
        cookies = answer.get("cookies")  # an HTTP API answer's own field (Powertools' resolvers)
        encoded = bool(body) and answer.get("isBase64Encoded") is True
        if self.multi_value:
            several = {name: [value] for name, value in headers.items()}
            if cookies:
                several[SET_COOKIE] = list(cookies)
            shaped = {
                "statusCode": status,
                STATUS_LINE: description,
                "isBase64Encoded": encoded,
                "multiValueHeaders": several,
                "body": body,
            }
        else:
            if cookies:
                headers = {**headers, **single_value_cookies(cookies)}
            shaped = {
                "statusCode": status,
                STATUS_LINE: description,
                "isBase64Encoded": encoded,
                "headers": headers,
                "body": body,
            }
        return within_response_limit(shaped) if len(body) > LARGE_BODY_CHARS else shaped

    def http_api_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """The request as API Gateway's HTTP API would have sent it (payload 2.0), for a resolver
        that reads that shape (Powertools' HTTP API resolver routes by its path): the headers by
        lower-case name, the Cookie header's cookies also as `cookies`, the query values decoded (several of one
        name joined by commas), the client's address the one the load balancer appended."""
        from urllib.parse import parse_qsl

        headers = dict(self.headers(event))
        cookie = headers.get("cookie", "")
        query = self._query(event)
        values: dict[str, str] = {}
        for name, value in parse_qsl(query, keep_blank_values=True):
            values[name] = f"{values[name]},{value}" if name in values else value
        method, path = str(event.get("httpMethod") or "GET").upper(), str(event.get("path") or "/")
        host, _ = self.front_host(event)
        http = {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": self.source_ip(event)}
        request_id = headers.get("x-amzn-trace-id", "")
        return {
            "version": "2.0",
            "routeKey": "$default",
            "rawPath": path,
            "rawQueryString": query,
            "cookies": [part.strip() for part in cookie.split(";") if part.strip()],
            "headers": headers,
            "queryStringParameters": values,
            "requestContext": {
                "domainName": host,
                "http": {**http, "userAgent": headers.get("user-agent", "")},
                "requestId": request_id,
                "routeKey": "$default",
                "stage": "$default",
            },
            "body": event.get("body") or "",
            "isBase64Encoded": bool(event.get("isBase64Encoded")),
        }


# How many paths a load balancer's shape keeps routed, per method (visitors' paths are any).
ROUTED_PATHS_KEPT = 4096


def _matched(templates: list[tuple[str, tuple[str, ...]]], parts: list[str]) -> tuple[str, dict[str, str]]:
    """The route of the first template the path's `parts` match, and the parts it names."""
    for route, names in templates:
        if len(names) != len(parts):
            continue
        parameters = {}
        for name, part in zip(names, parts, strict=True):
            if name[0:1] == "{":
                if not part:
                    break
                parameters[name[1:-1]] = _decoded(part)
            elif name != part:
                break
        else:
            return route, parameters
    return "", {}


def _decoded(part: str) -> str:
    if "%" not in part:
        return part
    from urllib.parse import unquote

    return unquote(part)


@cache
def load_balancer_event(routes: tuple[str, ...], multi_value: bool) -> LoadBalancerEvent:
    return LoadBalancerEvent(routes, multi_value)


# A function's load balancer shapes: with single-value headers, then with multi-value ones.
LoadBalancerShapes = tuple[LoadBalancerEvent, LoadBalancerEvent]


def load_balancer_shapes(routes: tuple[str, ...]) -> LoadBalancerShapes:
    """The shapes of a load balancer's events to a function of `routes`, made once and kept by its
    reader: a hit then finds its shape by the event alone (no hashing of the routes)."""
    return load_balancer_event(routes, False), load_balancer_event(routes, True)


UNROUTED = load_balancer_shapes(())


def read_event(event: dict[str, Any], balancer: LoadBalancerShapes = UNROUTED) -> ShapedParts:
    """The shape of `event`, by what its front puts in it, and the parts every request reads. A
    load balancer's names itself in `requestContext.elb` (its path is matched against the routes
    of `balancer`: load_balancer_shapes); any other is API Gateway's, read here in one call: a
    redirect's hit reads no more before its response."""
    try:  # either front names every part a hit reads: read without defaults (a hit's time)
        context = event["requestContext"]
        headers = event["headers"]  # a load balancer's multi-value event has none: read below
        if "elb" in context:
            # A load balancer's hit: a GET with single-value headers (the redirect's target group),
            # no query, a path routed before. Anything else is read by its shape, which routes it once.
            method = event["httpMethod"]
            if "host" in headers and not event["queryStringParameters"] and method == "GET":
                single = balancer[0]
                route, parameters = single.routed_gets[event["path"]]
                return single, route, method, parameters, headers, ""
            return balancer["multiValueHeaders" in event].read_shaped(event)
        if "host" in headers:
            parameters = event.get("pathParameters") or {}
            route, query = event["routeKey"] or "", event["rawQueryString"] or ""
            return HTTP_API, route, context["http"]["method"], parameters, headers, query
    except (KeyError, TypeError):  # an event made by hand may leave parts out: read below
        pass
    context = event.get("requestContext") or {}
    if "elb" in context:
        return balancer["multiValueHeaders" in event].read_shaped(event)
    headers = event.get("headers") or {}
    # API Gateway lower-cases every name; `sam local` passes werkzeug's Title-Case ones ("Host",
    # "Sec-Purpose"). Every request names its host, so that name's spelling tells which.
    if "host" not in headers:
        headers = {name.lower(): value for name, value in headers.items()}
    method = (context.get("http") or {}).get("method") or "GET"
    route = event.get("routeKey") or ""
    return HTTP_API, route, method, event.get("pathParameters") or {}, headers, event.get("rawQueryString") or ""


def event_shape(event: dict[str, Any]) -> EventShape:
    """The shape of `event` (as read_event tells it), for a door that reads only a part or two
    of it, or hands it on (shortlink.web.resolvers)."""
    if "elb" in (event.get("requestContext") or {}):
        return UNROUTED["multiValueHeaders" in event]
    return HTTP_API
