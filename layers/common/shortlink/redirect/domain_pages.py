"""What a short domain answers besides its links: its root (`GET /`), a code it does not know
(its not-found URL instead of the 404 page) and its /.well-known app-link files, each from the
domain's settings (shortlink.domains.settings). None of it is on a link's hit path."""

import logging
from collections.abc import Callable
from typing import Any

from shortlink.domains.settings import DomainSettings, settings_of
from shortlink.errors import ConfigurationError, StorageUnavailable
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.responses import NOINDEX

logger = logging.getLogger("shortlink.redirect.domain_pages")
# The files of /.well-known/{file} and the settings field each comes from.
WELL_KNOWN_FILES = {
    "apple-app-site-association": "apple_app_site_association",
    "assetlinks.json": "assetlinks",
}
# App stores' crawlers fetch these often; an hour keeps them off the function.
WELL_KNOWN_HEADERS = {"Content-Type": "application/json", "Cache-Control": "public, max-age=3600"}


# Every domain's settings by name, read by the composition root on first need.
AllDomainSettings = Callable[[], dict[str, DomainSettings]]


def settings_for(request: RedirectRequest, domain_settings: AllDomainSettings) -> DomainSettings:
    """The settings of the request's domain; plain ones (no fallbacks, no files) when it has none,
    or when they cannot be read (the reason goes to the log: a visitor never gets a 500)."""
    domain = request.domain
    if domain is None:
        return DomainSettings()
    try:
        return settings_of(domain_settings(), domain)
    except (ConfigurationError, StorageUnavailable):
        logger.exception("domain settings not readable: serving the plain pages")
        return DomainSettings()


def fallback_redirect(url: str) -> dict[str, Any]:
    """A 302 to a domain's fallback page: never cached, so a later link on the code takes over,
    and never indexed, as a link's redirect is not."""
    return {"statusCode": 302, "headers": {"Location": url, "Cache-Control": "no-store", **NOINDEX}, "body": ""}


def well_known_file(request: RedirectRequest, domain_settings: AllDomainSettings) -> dict[str, Any] | None:
    """The domain's app-link file the request names, or None when it has none of that name."""
    settings_field = WELL_KNOWN_FILES.get(request.path_parameter("file"))
    if settings_field is None:
        return None
    body = settings_for(request, domain_settings).app_files.get(settings_field)
    if body is None:
        return None
    return {"statusCode": 200, "headers": dict(WELL_KNOWN_HEADERS), "body": body}
