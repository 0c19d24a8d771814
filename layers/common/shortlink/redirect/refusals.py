"""A refusal answered: its outcome's page or fallback redirect (shortlink.redirect.outcomes), its
metric counted and its orphan visit recorded."""

import logging
from typing import Any

from shortlink.links.model import Link
from shortlink.redirect.outcomes import UNAVAILABLE, Fallback, Outcome
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.responses import redirect_response
from shortlink.redirect.services import RedirectServices

logger = logging.getLogger("shortlink.redirect")


def refused(
    services: RedirectServices,
    outcome: Outcome,
    request: RedirectRequest | None = None,
    key: str | None = None,
    checking: bool = False,
    link: Link | None = None,
) -> dict[str, Any]:
    """The outcome's page (or its fallback redirect: the link's, or the `request`'s domain's), its
    metric counted and, unless checking, the orphan visit of `key` recorded."""
    dispatcher = services.dispatcher
    if outcome.metric is not None:
        dispatcher.count(outcome.metric)
    if outcome.orphan is not None and key is not None and not checking:
        dispatcher.record_orphan(key, outcome.orphan)
    if outcome.fallback is Fallback.EXPIRED_URL and link is not None and link.expired_url is not None:
        return redirect_response(link, 302, link.expired_url)
    if outcome.fallback is Fallback.DOMAIN_NOT_FOUND_URL and request is not None:
        from shortlink.redirect.domain_pages import fallback_redirect, settings_for

        url = settings_for(request, services.domain_settings).not_found_url
        if url is not None:
            return fallback_redirect(url)
    return outcome.page()


def unavailable(services: RedirectServices, failed: str) -> dict[str, Any]:
    """503, to retry in a second, when storage did not answer; `failed` (what was not done) is
    logged with the error."""
    logger.exception(failed)
    return refused(services, UNAVAILABLE)
