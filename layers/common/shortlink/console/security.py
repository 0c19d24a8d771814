"""A person's own sign-in security: TOTP set up from the console (the pool associates a secret,
shown here as text and as an otpauth URI for an authenticator app; a first code turns it on),
and passkeys (added with the browser's navigator.credentials.create, listed, removed).
The password is asked again at each step: the console keeps no token of the pool to act with."""

import json
from typing import Any
from urllib.parse import quote, urlencode

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.rate_limits import SignInAttempt
from shortlink.console import audit, forms
from shortlink.console.passkey_credentials import BASE64URL, MAX_FIELD_CHARS, parsed_credential
from shortlink.console.people_sign_in import MAX_PASSWORD_CHARS, counted, pool
from shortlink.console.plumbing import Refused, posted_by_session, requiring, shown
from shortlink.console.sessions import Session
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidMemberOption, PasskeyRefused, SignInRefused
from shortlink.people.ports import Passkey
from shortlink.wiring import people_settings

ISSUER = "Shortlink"

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def otpauth_uri(email: str, secret: str) -> str:
    """What an authenticator app reads (as a QR code or pasted): the key URI format."""
    return f"otpauth://totp/{quote(ISSUER)}:{quote(email)}?{urlencode({'secret': secret, 'issuer': ISSUER})}"


def person_only(actor: Actor) -> None:
    if actor.kind != "person":
        raise Refused(400, "an API key has no sign-in security to set: sign in with your email")


def password_of(form: forms.Form) -> str:
    password = forms.value(form, "password")
    if not 0 < len(password) <= MAX_PASSWORD_CHARS:
        raise Refused(422, "Enter your password.")
    return password


@router.get("/console/security")
def security() -> Response[Any]:
    current, actor = requiring()
    person_only(actor)
    return passkeys_page(actor, current)


@router.post("/console/security/totp")
def start_totp() -> Response[Any]:
    form, current, actor = posted_by_session()
    person_only(actor)
    attempt = counted(actor.label)
    try:
        secret = pool().start_totp(actor.label, password_of(form))
    except SignInRefused:
        error = "That password is not right, or TOTP is on already."
        return shown("security.html", actor, current, 401, secret=None, uri=None, done=False, error=error)
    attempt.succeeded()
    uri = otpauth_uri(actor.label, secret)
    return shown("security.html", actor, current, secret=secret, uri=uri, done=False, error=None)


@router.post("/console/security/totp/confirm")
def confirm_totp() -> Response[Any]:
    form, current, actor = posted_by_session()
    person_only(actor)
    attempt = counted(actor.label)
    secret = forms.value(form, "secret")[:64]
    try:
        pool().confirm_totp(actor.label, password_of(form), forms.value(form, "code")[:16])
    except SignInRefused:
        error = "That password or code is not right: try the next code."
        uri = otpauth_uri(actor.label, secret) if secret else None
        return shown("security.html", actor, current, 401, secret=secret or None, uri=uri, done=False, error=error)
    attempt.succeeded()
    audit.record(actor, "person.totp_enabled", actor.id)
    logger.info("TOTP turned on", extra={"subject": actor.id})
    return shown("security.html", actor, current, secret=None, uri=None, done=True, error=None)


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
    return shown(
        "security.html",
        actor,
        current,
        status,
        secret=None,
        uri=None,
        done=False,
        error=error,
        passkeys_on=people_settings().passkeys,
        passkey_notice=notice,
        passkeys=passkeys,
        registration=registration,
    )


def passkey_form() -> tuple[forms.Form, Session, Actor, SignInAttempt]:
    """A passkey form of a signed-in person, on a console whose pool offers passkeys, and its
    sign-in attempt (each asks the pool to check the password; given back once it was right)."""
    form, current, actor = posted_by_session()
    person_only(actor)
    if not people_settings().passkeys:
        raise Refused(404, "Passkeys are off on this console.")
    return form, current, actor, counted(actor.label)


RECHECK_REFUSED = "That password is not right (or two-step sign-in is on: passkeys are added before it)."


@router.post("/console/security/passkeys")
def list_passkeys() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    try:
        listed = pool().passkeys(actor.label, password_of(form))
    except SignInRefused:
        return passkeys_page(actor, current, 401, error=RECHECK_REFUSED)
    attempt.succeeded()
    return passkeys_page(actor, current, passkeys=listed)


@router.post("/console/security/passkeys/start")
def start_passkey() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    try:
        options = pool().start_passkey_registration(actor.label, password_of(form))
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
        password = password_of(form)
        pool().complete_passkey_registration(actor.label, password, credential)
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
    listed = pool().passkeys(actor.label, password)
    return passkeys_page(actor, current, notice="Passkey added: sign in with it next time.", passkeys=listed)


@router.post("/console/security/passkeys/remove")
def remove_passkey() -> Response[Any]:
    form, current, actor, attempt = passkey_form()
    credential_id = forms.value(form, "credential_id")
    if not (0 < len(credential_id) <= MAX_FIELD_CHARS and BASE64URL.fullmatch(credential_id)):
        attempt.passed()  # no password was checked
        return passkeys_page(actor, current, 400, error="That is no passkey's id.")
    try:
        password = password_of(form)
        pool().remove_passkey(actor.label, password, credential_id)
    except SignInRefused:
        return passkeys_page(actor, current, 401, error=RECHECK_REFUSED)
    except PasskeyRefused as error:
        attempt.succeeded()  # the password was right
        return passkeys_page(actor, current, 404, error=str(error))
    attempt.succeeded()
    audit.record(actor, "person.passkey_removed", actor.id)
    logger.info("passkey removed", extra={"subject": actor.id})
    listed = pool().passkeys(actor.label, password)
    return passkeys_page(actor, current, notice="Passkey removed.", passkeys=listed)
