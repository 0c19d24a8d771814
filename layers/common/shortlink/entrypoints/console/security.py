"""A person's own sign-in security: TOTP set up from the console (the pool associates a secret,
shown here as text and as an otpauth URI for an authenticator app; a first code turns it on).
The password is asked again at each step: the console keeps no token of the pool to act with."""

from typing import Any
from urllib.parse import quote, urlencode

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.console import forms
from shortlink.entrypoints.console.people_sign_in import MAX_PASSWORD_CHARS, counted, pool
from shortlink.entrypoints.console.plumbing import Refused, posted_by_session, requiring, shown
from shortlink.people.actors import Actor
from shortlink.people.errors import SignInRefused

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
    return shown("security.html", actor, current, secret=None, uri=None, done=False, error=None)


@router.post("/console/security/totp")
def start_totp() -> Response[Any]:
    form, current, actor = posted_by_session()
    person_only(actor)
    counted(actor.label)
    try:
        secret = pool().start_totp(actor.label, password_of(form))
    except SignInRefused:
        error = "That password is not right, or TOTP is on already."
        return shown("security.html", actor, current, 401, secret=None, uri=None, done=False, error=error)
    uri = otpauth_uri(actor.label, secret)
    return shown("security.html", actor, current, secret=secret, uri=uri, done=False, error=None)


@router.post("/console/security/totp/confirm")
def confirm_totp() -> Response[Any]:
    form, current, actor = posted_by_session()
    person_only(actor)
    counted(actor.label)
    secret = forms.value(form, "secret")[:64]
    try:
        pool().confirm_totp(actor.label, password_of(form), forms.value(form, "code")[:16])
    except SignInRefused:
        error = "That password or code is not right: try the next code."
        uri = otpauth_uri(actor.label, secret) if secret else None
        return shown("security.html", actor, current, 401, secret=secret or None, uri=uri, done=False, error=error)
    logger.info("TOTP turned on", extra={"subject": actor.id})
    return shown("security.html", actor, current, secret=None, uri=None, done=True, error=None)
