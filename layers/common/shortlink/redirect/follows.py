"""A follow of a short link: a plain link's GET answered with the response made when it was
cached, anything else by the walk through the link's settings in this order (each setting:
docs/links.md); and the click it makes.

  unknown or not yet valid → 404; deleted or expired → 410; access rules → 403;
  password → unlock form; max_clicks → 410 once used up; routes pick the destination.

Each refusal's page, status, metric and orphan visit: shortlink.redirect.outcomes. What the
rules, the unlock and the preview card need is loaded when a link has them.
"""

from datetime import UTC, datetime
from typing import Any

from shortlink.errors import DestinationTooLong, StorageUnavailable
from shortlink.links.model import Availability, Link
from shortlink.redirect.outcomes import (
    DELETED,
    DENIED,
    EXPIRED,
    NO_SUCH_ADDRESS,
    NOT_YET_VALID,
    PREFETCH_DECLINED,
    TOO_LONG,
    UNKNOWN,
    USED_UP,
    WRONG_METHOD,
)
from shortlink.redirect.refusals import refused, unavailable
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.responses import preview_card, redirect_response
from shortlink.redirect.services import RedirectServices
from shortlink.web.events import HTTP_API

OUTCOME_OF = {Availability.NOT_YET: NOT_YET_VALID, Availability.EXPIRED: EXPIRED, Availability.DELETED: DELETED}


def follow(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """The answer to a follow of the request's code: a browser's speculative fetch declined
    before anything is read, counted or taken; the link looked up by the request's key; a plain
    link's GET without a query answered as cached (no AWS call on a hit; in the shape of the
    request's front, which the door hands on as it is), any other its rules applied
    (`apply_rules`); the click recorded from the same request unless the follow was refused or
    a check (HEAD)."""
    method = request.method
    if method == "GET" and request.speculative:
        return refused(services, PREFETCH_DECLINED, request)
    key = request.key
    if key is None:  # a host that is none of the stack's domains
        return refused(services, NO_SUCH_ADDRESS, request)
    try:
        found = services.links.lookup(key)
    except StorageUnavailable:
        return unavailable(services, "link lookup failed")
    ready = found.prepared
    if ready is not None and method == "GET" and not request.query:
        url, answer, shaped = ready  # a plain link's GET: the answer made when it was cached
        front = request.front
        if front is not HTTP_API:  # a load balancer's: shaped at the link's first hit through it
            try:
                answer = shaped[front]
            except KeyError:
                answer = shaped[front] = front.response(answer, method)
            request.in_front_shape = True
    else:
        checking = method == "HEAD"
        destination, answer = apply_rules(services, request, key, found.link, checking)
        if destination is None or checking:
            return answer
        url = destination
    # Counted under the key the link was looked up by, with the cache's outcome:
    # Redirects = CacheHits + CacheMisses (metric math on the dashboard).
    services.dispatcher.record_click(key, request, url, found.link, found.hit)
    return answer


def apply_rules(
    services: RedirectServices, request: RedirectRequest, key: str, link: Link | None, checking: bool
) -> tuple[str | None, dict[str, Any]]:
    """The destination of a follow of `link` and its answer, its settings applied in the order
    above; no destination when one refused it (the answer is then the refusal's page)."""
    # 1. unknown, or not yet valid: 404; 2. deleted or expired: 410
    if link is None:
        return None, refused(services, UNKNOWN, request, key, checking)
    availability = link.availability(datetime.now(UTC))
    if availability is not Availability.ACTIVE:
        return None, refused(services, OUTCOME_OF[availability], request, key, checking, link)
    # 3. access rules: 403
    if link.rules is not None and link.rules.denies(request.visitor):
        return None, refused(services, DENIED, request)
    # 6. routes pick the destination, UTM fields and the visitor's query are merged in (before 4
    # and 5: an address too long spends no unlock attempt and takes no follow from the budget)
    url = link.url if link.rules is None else link.rules.destination(request.visitor, link.code, link.url)
    query = request.query if link.forward_query else ""
    if query or link.utm is not None:
        from shortlink.links.destinations import destination

        try:
            url = destination(url, link.utm, query)
        except DestinationTooLong:
            return None, refused(services, TOO_LONG, request)
    # 4. password: the unlock form until the right one is posted
    status = link.redirect_type
    if link.password_hash is not None:
        from shortlink.redirect.unlock import unlock

        refusal = unlock(services, request, link)
        if refusal is not None:
            return None, refusal
        status = 303  # after a POST: the browser GETs the destination, never re-sends the password
    elif request.method not in ("GET", "HEAD"):
        return None, WRONG_METHOD.page({"Allow": "GET, HEAD"})
    # 5. max_clicks: one follow taken from the budget, 410 once used up
    if link.max_clicks is not None and not checking:
        try:
            allowed = services.click_budget().take(link.key)  # the one conditional update such links add
        except StorageUnavailable:
            return None, unavailable(services, "click budget not updated")
        if not allowed:
            return None, refused(services, USED_UP, request, key, checking, link)
    # 7. the redirect, or the preview card for a link-preview bot; the click is queued after it
    if link.preview is not None:
        from shortlink.rules.user_agents import is_link_preview

        if is_link_preview(request.user_agent):
            return url, preview_card(link, link.preview, url)
    return url, redirect_response(link, status, url)
