"""A person's own sign-in security: the page (its two-step part is shortlink.console.two_step's)
and passkeys (added with the browser's navigator.credentials.create, listed, removed).
The password is asked again at each step: the console keeps no token of the pool to act with."""

import json
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.rate_limits import SignInAttempt
from shortlink.console import audit, forms
from shortlink.console.passkey_credentials import BASE64URL, MAX_FIELD_CHARS, parsed_credential
from shortlink.console.people_sign_in import counted, pool
from shortlink.console.plumbing import Refused, posted_by_session, requiring
from shortlink.console.sessions import Session
from shortlink.console.two_step import password_of, person_only, security_page, totp_state
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidMemberOption, PasskeyRefused, SignInRefused
from shortlink.people.ports import Passkey
from shortlink.wiring import people_settings

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


@router.get("/console/security")
def security() -> Response[Any]:
    current, actor = requiring()
    person_only(actor)
    return security_page(actor, current, **totp_state(actor))


def passkeys_page(
    actor: Actor,
    current: Session,
    status: int = 200,
    error: str | None = None,
    notice: str | None = None,
    passkeys: list[Passkey] | None = None,
    registration: str | None = None,
) -> Response[Any]:
    """The Sign-in security page with its passkeys' part: the person's passkeys once listed
    (their password given), or the options of one being made."""
    context = {"passkey_notice": notice, "passkeys": passkeys, "registration": registration}
    return security_page(actor, current, status, error=error, **context, **totp_state(actor))


def passkey_form() -> tuple[forms.Form, Session, Actor, SignInAttempt]:
    """A passkey form of a signed-in person, on a console whose pool offers passkeys, and its
    sign-in attempt (each asks the pool to check the password; given back once it was right)."""
    form, current, actor = posted_by_session()
    person_only(actor)
    if not people_settings().passkeys:
        raise Refused(404, "Passkeys are off on this console.")
    return form, current, actor, counted(actor.label)


RECHECK_REFUSED = "That password is not right (or, with two-step sign-in on, the app's current code)."


def code_of(form: forms.Form) -> str:
    """The TOTP code a passkey form carries where two-step sign-in is on (empty: none)."""
    return forms.value(form, "code")[:16]


@router.post("/console/security/passkeys")
def list_passkeys() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    try:
        listed = pool().passkeys(actor.label, password_of(form), code_of(form))
    except SignInRefused:
        return passkeys_page(actor, current, 401, error=RECHECK_REFUSED)
    attempt.succeeded()
    return passkeys_page(actor, current, passkeys=listed)


@router.post("/console/security/passkeys/start")
def start_passkey() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    try:
        options = pool().start_passkey_registration(actor.label, password_of(form), code_of(form))
    except SignInRefused:
        return passkeys_page(actor, current, 401, error=RECHECK_REFUSED)
    except PasskeyRefused as error:
        attempt.succeeded()  # the password was right
        return passkeys_page(actor, current, 409, error=f"No passkey can be added now: {error}")
    attempt.succeeded()
    return passkeys_page(actor, current, registration=json.dumps(options))


@router.post("/console/security/passkeys/complete")
def complete_passkey() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    try:
        credential = parsed_credential(forms.value(form, "credential"), "registration")
        listed = pool().complete_passkey_registration(actor.label, password_of(form), credential, code_of(form))
    except InvalidMemberOption as error:
        return passkeys_page(actor, current, 400, error=f"{error} Start again: Add a passkey.")
    except SignInRefused:
        return passkeys_page(actor, current, 401, error=f"{RECHECK_REFUSED} Start again: Add a passkey.")
    except PasskeyRefused as error:
        attempt.succeeded()  # the password was right
        return passkeys_page(actor, current, 400, error=f"The pool did not accept the passkey: {error}")
    attempt.succeeded()
    audit.record(actor, "person.passkey_added", actor.id)
    logger.info("passkey added", extra={"subject": actor.id})
    return passkeys_page(actor, current, notice="Passkey added: sign in with it next time.", passkeys=listed)


@router.post("/console/security/passkeys/remove")
def remove_passkey() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    credential_id = forms.value(form, "credential_id")
    if not (0 < len(credential_id) <= MAX_FIELD_CHARS and BASE64URL.fullmatch(credential_id)):
        attempt.passed()  # no password was checked
        return passkeys_page(actor, current, 400, error="That is no passkey's id.")
    try:
        listed = pool().remove_passkey(actor.label, password_of(form), credential_id, code_of(form))
    except SignInRefused:
        return passkeys_page(actor, current, 401, error=RECHECK_REFUSED)
    except PasskeyRefused as error:
        attempt.succeeded()  # the password was right
        return passkeys_page(actor, current, 404, error=str(error))
    attempt.succeeded()
    audit.record(actor, "person.passkey_removed", actor.id)
    logger.info("passkey removed", extra={"subject": actor.id})
    return passkeys_page(actor, current, notice="Passkey removed.", passkeys=listed)
