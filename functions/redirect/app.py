"""The redirect function: GET, HEAD and POST /{code} (a password link's form posts back), and a
short domain's own addresses (shortlink.redirect.domain_addresses).

A plain link's GET without a query, on a stack without Domains, gets the answer made when the link
was cached: no AWS call before it on a hit, one GetItem on a miss. Everything else reads its request
once (shortlink.redirect.request) and takes the walk (shortlink.redirect.follows). Clicks leave
after the response (shortlink.redirect.click_dispatch). Each import here is paid on a cold start.
"""

from typing import Any

from shortlink import wiring
from shortlink.domains.model import KEY_SEPARATOR
from shortlink.errors import StorageUnavailable
from shortlink.redirect.follows import follow
from shortlink.redirect.refusals import unavailable
from shortlink.redirect.request import RedirectRequest
from shortlink.wiring import cached_links, host_prefixes, redirect_services

wiring.load_link_reader()  # botocore at init, where provisioned concurrency pays it
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = wiring.click_dispatcher()

FOLLOW_ROUTE = "GET /{code}"
ADDRESS_ROUTES = ("GET /", "GET /.well-known/{file}", "GET /robots.txt")  # domain_addresses.ROUTES


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
        if found.prepared is not None and not event.get("rawQueryString"):
            url, answer = found.prepared  # the walk's answer, made when the plain link was cached
            dispatcher.record_click(code, event, url, found.link, found.hit)
            return answer
    services = redirect_services(dispatcher)
    return follow(services, RedirectRequest(event, method, code, services.reading), found)


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        route = event.get("routeKey")
        if route == FOLLOW_ROUTE:  # API Gateway names the path's code on the link's routes
            return redirect(event, "GET", event["pathParameters"]["code"])
        if route in ADDRESS_ROUTES:
            from shortlink.redirect import domain_addresses

            return domain_addresses.answer(redirect_services(dispatcher), event, route)
        method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "GET")
        answer = redirect(event, method, (event.get("pathParameters") or {}).get("code") or "")
        # HEAD (link checkers, crawlers, `curl -I`): a GET's answer without its body, click or max_clicks follow.
        return {**answer, "body": ""} if method == "HEAD" else answer
    finally:
        dispatcher.invocation_done()
