"""The redirect's one door: a request, read once whatever front sent it, to its answer, shaped
for that front. A route with a code is a follow (shortlink.redirect.follows); any other is one
of a short domain's own addresses (shortlink.redirect.domain_addresses).

The door is the function's handler itself: a hit pays for no frame between the event and the
follow but the request's reading."""

from collections.abc import Callable
from typing import Any

from shortlink.redirect.click_dispatch import ClickDispatcher
from shortlink.redirect.follows import follow
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.services import RedirectServices
from shortlink.web.events import HTTP_API

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def redirect_handler(dispatcher: ClickDispatcher, services_of: Callable[[], RedirectServices]) -> Handler:
    """The redirect's Lambda handler: each event answered with the services `services_of` gives
    (the composition root's, kept per environment), its clicks handed to `dispatcher` once the
    handler is done."""

    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            services = services_of()
            request = RedirectRequest(event, services.reading)
            if request.code is None:
                from shortlink.redirect import domain_addresses

                return request.front.response(domain_addresses.answer(services, request), request.method)
            answer = follow(services, request)
            # A GET's answer goes as made to the HTTP API, and a cached hit's as the link's entry
            # keeps it for a load balancer (follows.follow): a hit shapes nothing.
            if request.method == "GET" and (request.front is HTTP_API or request.in_front_shape):
                return answer
            return request.front.response(answer, request.method)
        finally:
            dispatcher.invocation_done()

    return lambda_handler
