"""Which route a request of the local stack took, as API Gateway's $context.routeKey names it: kept
in the WSGI environ for the request log (the route, never the path: a private code is a capability)."""

from typing import Any

# The environ key under which the request's route key ("GET /{code}") is kept for the request log.
ROUTE_KEY = "shortlink.route_key"


def route_key_of(environ: dict[str, Any]) -> str:
    """The route key a request was routed to, "-" for none (as API Gateway's $context.routeKey)."""
    return str(environ.get(ROUTE_KEY, "-"))
