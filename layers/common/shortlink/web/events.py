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
        """`answer` (statusCode, headers, body) as this front takes it back for a `method` request."""


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


HTTP_API = HttpApiEvent()
# The host names of load balancers (a request to one's own name serves the default domain).
LOAD_BALANCER_HOST_SUFFIX = ".elb.amazonaws.com"


class LoadBalancerEvent:
    """An Application Load Balancer's event for a Lambda target; `routes` are the function's
    (as the template names them), `multi_value`: the target group sends multi-value headers."""

    def __init__(self, routes: tuple[str, ...], multi_value: bool) -> None:
        self.multi_value = multi_value
        # Literal parts before named ones, as API Gateway prefers "/robots.txt" to "/{code}".
        self._routes = sorted(
            ((route, *route.split(" ", 1)) for route in routes),
            key=lambda entry: -sum(not part.startswith("{") for part in entry[2].split("/")),
        )

    def read(self, event: dict[str, Any]) -> EventParts:
        route, method, parameters = self._routed(event)
        return route, method, parameters, self.headers(event), self._query(event)

    def _routed(self, event: dict[str, Any]) -> tuple[str, str, Mapping[str, str]]:
        from urllib.parse import unquote

        method, parts = str(event.get("httpMethod") or "GET").upper(), str(event.get("path") or "/").split("/")
        for route, route_method, template in self._routes:
            names = template.split("/")
            if route_method != method or len(names) != len(parts):
                continue
            parameters = {}
            for name, part in zip(names, parts, strict=True):
                if name.startswith("{"):
                    if not part:
                        break
                    parameters[name.strip("{}")] = unquote(part)
                elif name != part:
                    break
            else:
                return route, method, parameters
        return "", method, {}

    def headers(self, event: dict[str, Any]) -> Mapping[str, str]:
        if self.multi_value:
            several: Mapping[str, list[str]] = event.get("multiValueHeaders") or {}
            return {name.lower(): ",".join(values) for name, values in several.items()}
        headers: Mapping[str, str] = event.get("headers") or {}
        return {name.lower(): value for name, value in headers.items()}

    def _query(self, event: dict[str, Any]) -> str:
        # Values as the client sent them (not decoded); "?flag" arrives as "flag=".
        if self.multi_value:
            several: Mapping[str, list[str]] = event.get("multiValueQueryStringParameters") or {}
            return "&".join(f"{name}={value}" for name, values in several.items() for value in values)
        single: Mapping[str, str] = event.get("queryStringParameters") or {}
        return "&".join(f"{name}={value}" for name, value in single.items())

    def source_ip(self, event: dict[str, Any]) -> str:
        # The load balancer appends the address it saw; what comes before it is the client's say.
        return self.headers(event).get("x-forwarded-for", "").rpartition(",")[2].strip()

    def front_host(self, event: dict[str, Any]) -> tuple[str, bool]:
        import re

        host = re.sub(r":[0-9]+\Z", "", self.headers(event).get("host", ""))  # Host: name[:port]
        return host, host.endswith(LOAD_BALANCER_HOST_SUFFIX)

    def body(self, event: dict[str, Any]) -> tuple[str, bool]:
        return str(event.get("body") or ""), bool(event.get("isBase64Encoded"))

    def response(self, answer: dict[str, Any], method: str) -> dict[str, Any]:
        from http import HTTPStatus

        status = answer["statusCode"]
        shaped = {
            "statusCode": status,
            "statusDescription": f"{status} {HTTPStatus(status).phrase}",
            "isBase64Encoded": False,
            "body": "" if method == "HEAD" else answer.get("body", ""),
        }
        headers = answer.get("headers") or {}
        if self.multi_value:
            shaped["multiValueHeaders"] = {name: [value] for name, value in headers.items()}
        else:
            shaped["headers"] = headers
        return shaped


@cache
def load_balancer_event(routes: tuple[str, ...], multi_value: bool) -> LoadBalancerEvent:
    return LoadBalancerEvent(routes, multi_value)


def read_event(event: dict[str, Any], routes: tuple[str, ...] = ()) -> ShapedParts:
    """The shape of `event`, by what its front puts in it, and the parts every request reads. A
    load balancer's names itself in `requestContext.elb` (its path is matched against `routes`);
    any other is API Gateway's, read here in one call: a redirect's hit reads no more before its
    response."""
    try:  # API Gateway names every part but the path's: read without defaults (a hit's time)
        context = event["requestContext"]
        headers = event["headers"]
        if "elb" not in context and "host" in headers:
            parameters = event.get("pathParameters") or {}
            route, query = event["routeKey"] or "", event["rawQueryString"] or ""
            return HTTP_API, route, context["http"]["method"], parameters, headers, query
    except (KeyError, TypeError):  # an event made by hand may leave parts out: read below
        pass
    context = event.get("requestContext") or {}
    if "elb" in context:
        shape = load_balancer_event(routes, "multiValueHeaders" in event)
        return shape, *shape.read(event)
    headers = event.get("headers") or {}
    # API Gateway lower-cases every name; `sam local` passes werkzeug's Title-Case ones ("Host",
    # "Sec-Purpose"). Every request names its host, so that name's spelling tells which.
    if "host" not in headers:
        headers = {name.lower(): value for name, value in headers.items()}
    method = (context.get("http") or {}).get("method") or "GET"
    route = event.get("routeKey") or ""
    return HTTP_API, route, method, event.get("pathParameters") or {}, headers, event.get("rawQueryString") or ""


def event_shape(event: dict[str, Any]) -> EventShape:
    """The shape of `event` (read_event), for a door that reads only a part or two of it."""
    return read_event(event)[0]
