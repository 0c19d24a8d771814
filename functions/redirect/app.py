"""The redirect function's routes: GET, HEAD and POST /{code} (a password link's unlock form is
posted back), and a short domain's own addresses.

The fast path: a plain link's GET without a query, on a stack without Domains, gets the response
made when the link was cached; a hit makes no AWS call before it, a miss one GetItem (plain
botocore: adapters/dynamodb/link_reader.py). Everything else reads its request once
(shortlink.redirect.request) and takes the walk (shortlink.redirect.follows). Clicks and metrics
go to the dispatcher, which sends them after the response (shortlink.redirect.click_dispatch).
Nothing else is imported here: every import is paid on each cold start a visitor waits for.
"""

from typing import Any

from shortlink.domains.model import KEY_SEPARATOR
from shortlink.errors import StorageUnavailable
from shortlink.redirect.click_dispatch import click_dispatcher
from shortlink.redirect.follows import follow
from shortlink.redirect.refusals import unavailable
from shortlink.redirect.request import RedirectRequest
from shortlink.wiring import (
    cached_links,
    click_publisher,
    click_reading,
    host_prefixes,
    load_link_reader,
    packing_rules,
    redirect_services,
    visitor_salt_root,
)

load_link_reader()  # botocore at init, where provisioned concurrency pays it
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = click_dispatcher(click_publisher, visitor_salt_root, click_reading, packing_rules)

FOLLOW_ROUTE = "GET /{code}"
# Link checkers, crawlers and `curl -I`: the answer a GET gets, without its body, its click or a
# follow taken from max_clicks.
CHECK_ROUTE = "HEAD /{code}"
ROBOTS_ROUTE = "GET /robots.txt"
ROOT_ROUTE = "GET /"
WELL_KNOWN_ROUTE = "GET /.well-known/{file}"


def redirect(event: dict[str, Any], method: str, code: str) -> dict[str, Any]:
    """The answer to a follow of `code` by `method`: a plain link's ready-made redirect, or the walk's."""
    links = cached_links()  # first: made, it has filled host_prefixes from the settings
    found = None
    headers = event.get("headers") or {}
    # Without Domains a code is its key. A purpose header (a browser's prefetch?) is the walk's to judge.
    plain_get = method == "GET" and not host_prefixes and KEY_SEPARATOR not in code
    if plain_get and "sec-purpose" not in headers and "purpose" not in headers and "x-moz" not in headers:
        try:
            found = links.lookup(code)
        except StorageUnavailable:
            return unavailable(redirect_services(dispatcher), "link lookup failed")
        ready = found.prepared
        if ready is not None and not event.get("rawQueryString"):
            url, answer = ready  # the walk's answer, made when the plain link was cached
            dispatcher.record_click(code, event, url, found.link, found.hit)
            return answer
    services = redirect_services(dispatcher)
    return follow(services, RedirectRequest(event, method, code, services.reading), found)


def address(event: dict[str, Any], route: str) -> dict[str, Any]:
    """A short domain's own address: its robots.txt, its root or one of its app-link files."""
    from shortlink.redirect import domain_addresses

    services = redirect_services(dispatcher)
    request = RedirectRequest(event, "GET", "", services.reading)
    if route == ROBOTS_ROUTE:
        return domain_addresses.robots(services, request)
    if route == ROOT_ROUTE:
        return domain_addresses.root(services, request)
    return domain_addresses.well_known(services, request)


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        route = event.get("routeKey")
        # API Gateway names the path's code on these routes.
        if route == FOLLOW_ROUTE:
            return redirect(event, "GET", event["pathParameters"]["code"])
        if route == CHECK_ROUTE:
            return {**redirect(event, "HEAD", event["pathParameters"]["code"]), "body": ""}
        if route in (ROBOTS_ROUTE, ROOT_ROUTE, WELL_KNOWN_ROUTE):
            return address(event, route)
        method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "GET")
        return redirect(event, method, (event.get("pathParameters") or {}).get("code") or "")
    finally:
        dispatcher.invocation_done()
