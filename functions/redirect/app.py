"""The redirect function: GET, HEAD and POST /{code} (a password link's form posts back), and a
short domain's own addresses (shortlink.redirect.domain_addresses).

Each event is read once into the request (shortlink.redirect.request), whatever front sent it,
and answered through the redirect's one door (shortlink.redirect.door): a plain link's hit makes
no AWS call. Clicks leave after the response (shortlink.redirect.click_extension). Each import
here is paid on a cold start.
"""

from typing import Any

from shortlink import wiring
from shortlink.redirect.door import answer
from shortlink.redirect.request import RedirectRequest
from shortlink.wiring import redirect_services

wiring.load_link_reader()  # botocore at init, where provisioned concurrency pays it
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = wiring.click_dispatcher()


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        services = redirect_services(dispatcher)
        return answer(services, RedirectRequest(event, services.reading))
    finally:
        dispatcher.invocation_done()
