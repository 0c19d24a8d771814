"""The redirect's one door: a request, read once whatever front sent it, to its answer, shaped
for that front. A route with a code is a follow (shortlink.redirect.follows); any other is one
of a short domain's own addresses (shortlink.redirect.domain_addresses)."""

from typing import Any

from shortlink.redirect.follows import follow
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.services import RedirectServices


def answer(services: RedirectServices, request: RedirectRequest) -> dict[str, Any]:
    """The answer to `request`, as its front takes it back."""
    if request.code is None:
        from shortlink.redirect import domain_addresses

        return request.front.response(domain_addresses.answer(services, request), request.method)
    return request.front.response(follow(services, request), request.method)
