"""The redirect function: GET, HEAD and POST /{code} (a password link's form posts back), and a
short domain's own addresses (shortlink.redirect.domain_addresses).

Each event is read once into the request (shortlink.redirect.request), whatever front sent it,
and answered through the redirect's one door (shortlink.redirect.door): a plain link's hit makes
no AWS call. Clicks leave after the response (shortlink.redirect.click_extension). Each import
here is paid on a cold start.
"""

from functools import partial

from shortlink import wiring
from shortlink.redirect.door import redirect_handler

wiring.load_link_reader()  # botocore at init, where provisioned concurrency pays it
# Created at init on purpose: Lambda only accepts extension registrations during init.
dispatcher = wiring.click_dispatcher()
# The services are the composition root's, fetched per request: a reset of the wiring reaches them.
lambda_handler = redirect_handler(dispatcher, partial(wiring.redirect_services, dispatcher))
