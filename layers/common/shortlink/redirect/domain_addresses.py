"""What a short domain answers at its own addresses, not a link's: its root (`GET /`), its
/.well-known app-link files (shortlink.redirect.domain_pages) and its robots.txt
(shortlink.redirect.robots), and a load balancer's health check. A host that is none of the
stack's domains gets the 404 page."""

from collections.abc import Callable
from typing import Any

from shortlink.domains.model import KEY_SEPARATOR
from shortlink.errors import StorageUnavailable
from shortlink.redirect.domain_pages import fallback_redirect, settings_for, well_known_file
from shortlink.redirect.outcomes import NO_SUCH_ADDRESS, NOT_FOUND_FILE
from shortlink.redirect.refusals import refused, unavailable
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.robots import HEADERS as ROBOTS_HEADERS
from shortlink.redirect.routes import HEALTH_CHECK, ROBOTS_TXT, ROOT, WELL_KNOWN_FILE
from shortlink.redirect.services import RedirectServices


def root(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """GET /: the domain's root URL, counted as an orphan visit of its root."""
    domain = request.domain
    if domain is None:
        return refused(services, NO_SUCH_ADDRESS, request)
    names = services.reading.domains.names
    services.dispatcher.record_orphan(f"{domain}/" if names and domain != names[0] else "/", "root")
    url = settings_for(request, services.domain_settings).root_url
    return fallback_redirect(url) if url is not None else NOT_FOUND_FILE.page()


def well_known(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """GET /.well-known/{file}: one of the domain's app-link files."""
    if request.domain is None:
        return refused(services, NO_SUCH_ADDRESS, request)
    return well_known_file(request, services.domain_settings) or NOT_FOUND_FILE.page()


def robots(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """GET /robots.txt: all disallowed but the request's domain's crawlable links."""
    prefix = request.key_prefix
    if prefix is None:
        return refused(services, NO_SUCH_ADDRESS, request)
    try:
        text = services.robots().text(prefix.removesuffix(KEY_SEPARATOR))
    except StorageUnavailable:
        return unavailable(services, "crawlable links not read")
    return {"statusCode": 200, "headers": ROBOTS_HEADERS, "body": text}


def health(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """GET /health from a load balancer: 200 while the function answers, whatever the host (the
    check names none of ours); no store read, no click."""
    return {"statusCode": 200, "headers": HEALTH_HEADERS, "body": "ok"}


HEALTH_HEADERS = {"content-type": "text/plain; charset=utf-8", "cache-control": "no-store"}
AddressPage = Callable[[RedirectServices, RedirectRequest], dict[str, Any]]
# The page at each of a domain's own addresses: the redirect's routes without a code.
ROUTES: dict[str, AddressPage] = {ROOT: root, WELL_KNOWN_FILE: well_known, ROBOTS_TXT: robots, HEALTH_CHECK: health}


def answer(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """The answer at one of the domain's own addresses, by the request's route; the 404 page at
    a route that is none of them."""
    page = ROUTES.get(request.route)
    return NOT_FOUND_FILE.page() if page is None else page(services, request)
