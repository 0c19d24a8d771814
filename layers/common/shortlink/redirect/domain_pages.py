"""What a short domain answers besides its links: its root (`GET /`), a code it does not know
(its not-found URL instead of the 404 page) and its /.well-known app-link files, each from the
domain's settings (shortlink.domains.settings). None of it is on a link's hit path."""

import logging
from typing import Any

from shortlink.config import ConfigurationError
from shortlink.domains.settings import DomainSettings, settings_of
from shortlink.redirect.request_hosts import request_domain
from shortlink.wiring import domain_settings

logger = logging.getLogger("shortlink.redirect.domain_pages")
# The files of /.well-known/{file} and the settings field each comes from.
WELL_KNOWN_FILES = {
    "apple-app-site-association": "apple_app_site_association",
    "assetlinks.json": "assetlinks",
}
# App stores' crawlers fetch these often; an hour keeps them off the function.
WELL_KNOWN_HEADERS = {"Content-Type": "application/json", "Cache-Control": "public, max-age=3600"}


def settings_for(event: dict[str, Any]) -> DomainSettings:
    """The settings of the request's domain; plain ones (no fallbacks, no files) when it has none,
    or when they cannot be read (the reason goes to the log: a visitor never gets a 500)."""
    from botocore.exceptions import BotoCoreError, ClientError

    domain = request_domain(event)
    if domain is None:
        return DomainSettings()
    try:
        return settings_of(domain_settings(), domain)
    except (ConfigurationError, BotoCoreError, ClientError):
        logger.exception("domain settings not readable: serving the plain pages")
        return DomainSettings()


def fallback_redirect(url: str) -> dict[str, Any]:
    """A 302 to a domain's fallback page: never cached, so a later link on the code takes over."""
    return {"statusCode": 302, "headers": {"Location": url, "Cache-Control": "no-store"}, "body": ""}


def well_known_file(event: dict[str, Any]) -> dict[str, Any] | None:
    """The domain's app-link file the request names, or None when it has none of that name."""
    name = (event.get("pathParameters") or {}).get("file") or ""
    settings_field = WELL_KNOWN_FILES.get(name)
    if settings_field is None:
        return None
    body = settings_for(event).app_files.get(settings_field)
    if body is None:
        return None
    return {"statusCode": 200, "headers": dict(WELL_KNOWN_HEADERS), "body": body}
