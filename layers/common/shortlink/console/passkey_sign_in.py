"""People signing in with a passkey: an email, then the pool's challenge signed by the browser
(navigator.credentials.get), which the pool checks. The pool's handle of the sign-in waits in
the signed HttpOnly challenge cookie, as a TOTP sign-in's does; each start is counted per
address and per account before the pool is asked, as a password sign-in is."""

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.console import forms
from shortlink.console.challenges import CHALLENGE_COOKIE, challenge_cookie, open_challenge, seal_challenge
from shortlink.console.pages import page
from shortlink.console.passkey_credentials import parsed_credential
from shortlink.console.people_sign_in import counted, next_step, pool
from shortlink.console.plumbing import Refused, current_event, now, posted_form
from shortlink.console.recent_passkey import recent_passkey_cookie
from shortlink.console.sessions import cookie_value
from shortlink.people.errors import InvalidMemberOption, SignInRefused
from shortlink.people.members import checked_email
from shortlink.people.model import Person
from shortlink.wiring import console_session_secret, people_settings

NO_PASSKEY = "This email has no passkey here (or no account): sign in with your password."
TOO_LONG = "This sign-in took too long, or was used already: start again."

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def sign_in_refused(status: int, message: str) -> Response[Any]:
    """The sign-in page with `message`; the challenge cookie ended (the pool's handle is spent)."""
    answer = page("sign_in.html", status, error=message, people=True, passkeys=people_settings().passkeys)
    answer.cookies.append(challenge_cookie(""))
    return answer


@router.post("/console/sign-in/passkey")
def start_passkey_sign_in() -> Response[Any]:
    form = posted_form()
    if not people_settings().passkeys:
        raise Refused(404, "Passkeys are off on this console.")
    try:
        email = checked_email(forms.value(form, "email"))
    except InvalidMemberOption as error:
        return sign_in_refused(422, str(error))
    attempt = counted(email)
    try:
        started = pool().start_passkey_sign_in(email)
    except SignInRefused:
        return sign_in_refused(401, NO_PASSKEY)
    attempt.passed()  # nothing guessed: the pool's signature check decides at the finish
    sealed = seal_challenge(started.challenge, "", now(), console_session_secret())
    return page("sign_in_passkey.html", options=started.request_options, cookies=[challenge_cookie(sealed)])


@router.post("/console/sign-in/passkey/finish")
def finish_passkey_sign_in() -> Response[Any]:
    form = posted_form()
    cookie = cookie_value(current_event().cookies or [], CHALLENGE_COOKIE)
    opened = open_challenge(cookie, now(), console_session_secret())
    if opened is None or opened[0].kind != "passkey":
        return sign_in_refused(401, TOO_LONG)
    try:
        credential = parsed_credential(forms.value(form, "credential"), "authentication")
    except InvalidMemberOption as error:
        return sign_in_refused(400, f"{error} Start again.")
    attempt = counted(opened[0].email)
    try:
        outcome = pool().finish_passkey_sign_in(opened[0], credential)
    except SignInRefused:
        return sign_in_refused(401, "This passkey did not sign you in: start again, or use your password.")
    answer = next_step(outcome, opened[1], attempt)
    if isinstance(outcome, Person):  # a recent re-authentication for Sign-in security's steps
        answer.cookies.append(recent_passkey_cookie(outcome.subject, now(), console_session_secret()))
    return answer
