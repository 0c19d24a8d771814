"""A person who forgot their password sets a new one with a code the pool emails them
(Cognito's ForgotPassword and ConfirmForgotPassword). Nothing tells whether an address has an
account: a request for a code gets the same page, after the same single call to the pool,
either way; a wrong code and an unknown address get the same refusal. Requests for codes are
limited per address (IPv6 by /64) and per email; codes tried count as sign-in attempts. A new
password ends every session of the person: the console's and the pool's."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.rate_limits import take_password_reset_request
from shortlink.console import forms
from shortlink.console.pages import page
from shortlink.console.people_sign_in import MAX_PASSWORD_CHARS, counted, pool
from shortlink.console.person_audit import record_for_person
from shortlink.console.plumbing import current_event, now, posted_form
from shortlink.people.errors import InvalidMemberOption, SignInRefused, WeakPassword
from shortlink.people.members import checked_email
from shortlink.settings.edge import EdgeSettings
from shortlink.web.addresses import client_ip
from shortlink.wiring import attempt_log, person_sessions, settings_of

MAX_CODE_CHARS = 16
WRONG_CODE = "That code is not right for this email, or has expired: ask for a new one."

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def reset_page(status: int = 200, email: str = "", sent: bool = False, error: str | None = None) -> Response[Any]:
    return page("password_reset.html", status, email=email, sent=sent, error=error, rule=str(pool().password_rule()))


@router.get("/console/password/forgot")
def forgot_page() -> Response[Any]:
    pool()  # a 404 where the console has no people
    return page("password_forgot.html", error=None)


@router.post("/console/password/forgot")
def send_code() -> Response[Any]:
    form = posted_form()
    try:
        email = checked_email(forms.value(form, "email"))
    except InvalidMemberOption as error:
        return page("password_forgot.html", 422, error=str(error))
    client = client_ip(current_event().raw_event, settings_of(EdgeSettings).secret)
    take_password_reset_request(str(client or "unknown"), email, now(), attempt_log())
    pool().request_password_reset(email)
    return reset_page(email=email, sent=True)


@router.get("/console/password/reset")
def code_page() -> Response[Any]:
    return reset_page()


@router.post("/console/password/reset")
def reset_password() -> Response[Any]:
    form = posted_form()
    code, password = forms.value(form, "code").strip(), forms.value(form, "password")
    try:
        email = checked_email(forms.value(form, "email"))
    except InvalidMemberOption as error:
        return reset_page(422, error=str(error))
    if not (0 < len(code) <= MAX_CODE_CHARS and code.isascii() and code.isdigit()):
        return reset_page(422, email, error="code: the digits of the code in the email")
    if not 0 < len(password) <= MAX_PASSWORD_CHARS:
        return reset_page(422, email, error=f"password: 1 to {MAX_PASSWORD_CHARS} characters")
    attempt = counted(email)
    try:
        pool().reset_password(email, code, password)
    except SignInRefused:
        return reset_page(400, email, error=WRONG_CODE)
    except WeakPassword as error:
        attempt.passed()  # the code was not tried: the pool checks the password first
        return reset_page(422, email, error=f"password: {error}")
    attempt.succeeded()
    person = pool().person_named(email)
    if person is not None:  # every session ends: the console's, and the pool's refresh tokens
        person_sessions().end_sessions(person.subject, now())
        pool().end_pool_sessions(email)
        record_for_person(person, "person.password_reset")
        logger.info("password reset", extra={"subject": person.subject})
    notice = "Your password is changed and every session of yours has ended: sign in with the new one."
    return page("sign_in.html", people=True, error=None, notice=notice)
