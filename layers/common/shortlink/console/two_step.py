"""Two-step sign-in on a person's *Sign-in security* page: TOTP set up (the pool's secret shown
as text, as an otpauth URI and as its QR code; a first code turns it on), ten recovery codes
shown once when it turns on and made anew on request, and TOTP turned off. Making codes anew
and turning TOTP off re-authenticate: the password and a current code (or a recovery code),
checked by the pool as at sign-in. The console keeps no token of the pool to act with."""

from typing import Any, Literal
from urllib.parse import quote, urlencode

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.console import audit, forms
from shortlink.console.people_sign_in import MAX_PASSWORD_CHARS, counted, pool
from shortlink.console.plumbing import Refused, current_event, now, posted_by_session, shown
from shortlink.console.recent_passkey import signed_in_with_passkey_recently
from shortlink.console.sessions import Session
from shortlink.people.actors import Actor
from shortlink.people.errors import SignInRefused, WrongCode
from shortlink.people.model import Person
from shortlink.people.recovery_codes import issue_codes, normalized, redeem
from shortlink.wiring import console_session_secret, people_settings, recovery_code_key, recovery_codes

ISSUER = "Shortlink"
SecondFactor = Literal["totp", "recovery_code", "passkey", "none"]
MAX_CODE_CHARS = 32

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def otpauth_uri(email: str, secret: str) -> str:
    """What an authenticator app reads (as a QR code or pasted): the key URI format."""
    return f"otpauth://totp/{quote(ISSUER)}:{quote(email)}?{urlencode({'secret': secret, 'issuer': ISSUER})}"


def qr_image(uri: str) -> str:
    """The URI's QR code as an SVG data URI (the page's CSP takes data: images, nothing inline)."""
    import segno  # only TOTP's set-up draws

    return str(segno.make(uri, error="m").svg_data_uri(scale=4, border=4))


def person_only(actor: Actor) -> None:
    if actor.kind != "person":
        raise Refused(400, "an API key has no sign-in security to set: sign in with your email")


def password_of(form: forms.Form) -> str:
    password = forms.value(form, "password")
    if not 0 < len(password) <= MAX_PASSWORD_CHARS:
        raise Refused(422, "Enter your password.")
    return password


def security_page(actor: Actor, current: Session, status: int = 200, **context: Any) -> Response[Any]:
    """The Sign-in security page with its two-step part as `context` says (and its passkeys'
    part folded)."""
    page_context: dict[str, Any] = {"secret": None, "uri": None, "qr": None, "done": False, "error": None}
    page_context |= {"passkeys_on": people_settings().passkeys, "passkey_notice": None, "passkeys": None}
    page_context |= {"registration": None, "passkey_recently": passkey_recently(actor)}
    return shown("security.html", actor, current, status, **(page_context | context))


def totp_state(actor: Actor) -> dict[str, Any]:
    """What the page says of two-step sign-in: whether it is on, and how many recovery codes are left."""
    on = pool().totp_on(actor.label)
    return {"totp_on": on, "codes_left": recovery_codes().remaining(actor.id) if on else 0}


@router.post("/console/security/totp")
def start_totp() -> Response[Any]:
    form, current, actor = posted_by_session()
    person_only(actor)
    attempt = counted(actor.label)
    try:
        secret = pool().start_totp(actor.label, password_of(form))
    except SignInRefused:
        return security_page(actor, current, 401, error="That password is not right, or TOTP is on already.")
    attempt.succeeded()
    uri = otpauth_uri(actor.label, secret)
    return security_page(actor, current, secret=secret, uri=uri, qr=qr_image(uri))


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
        qr = qr_image(uri) if uri else None
        return security_page(actor, current, 401, secret=secret or None, uri=uri, qr=qr, error=error)
    attempt.succeeded()
    codes = issue_codes(recovery_codes(), actor.id, recovery_code_key())
    audit.record(actor, "person.totp_enabled", actor.id)
    audit.record(actor, "person.recovery_codes_issued", actor.id)
    logger.info("TOTP turned on", extra={"subject": actor.id})
    return security_page(actor, current, done=True, codes=codes)


def passkey_recently(actor: Actor) -> bool:
    """Whether `actor` signed in with a passkey in the last few minutes (shortlink.console.recent_passkey)."""
    cookies = current_event().cookies or []
    return signed_in_with_passkey_recently(cookies, actor.id, now(), console_session_secret())


def reauthenticated(actor: Actor, form: forms.Form) -> SecondFactor:
    """`actor` signed in again: a passkey sign-in of the last few minutes, or their password
    then the pool's TOTP challenge answered with the code posted, or one of their recovery
    codes (spent); "none" where the pool asks no code (TOTP is off). SignInRefused for a wrong
    password, WrongCode for a wrong code (recorded)."""
    if not forms.value(form, "password") and passkey_recently(actor):
        return "passkey"
    password, code = password_of(form), forms.value(form, "code")[:MAX_CODE_CHARS]
    outcome = pool().sign_in(actor.label, password)
    if isinstance(outcome, Person):
        return "none"
    if normalized(code) is not None:
        if not redeem(recovery_codes(), actor.id, code, recovery_code_key()):
            audit.record(actor, "session.mfa_failed", actor.id)
            raise WrongCode("recovery code")
        audit.record(actor, "person.recovery_code_used", actor.id)
        return "recovery_code"
    try:
        pool().answer(outcome, code)
    except SignInRefused:  # a wrong code (WrongCode), or the pool's sign-in spent
        audit.record(actor, "session.mfa_failed", actor.id)
        raise WrongCode("code") from None
    return "totp"


REAUTH_REFUSED = "That password or code is not right: enter your password and the app's current code."
Reauthenticated = tuple[Session, Actor, SecondFactor]


class NotReauthenticated(Exception):
    """A form that re-authenticates, refused: the page says so (its attempt stays counted)."""

    def __init__(self, current: Session, actor: Actor) -> None:
        super().__init__(actor.id)
        self.current, self.actor = current, actor


@router.exception_handler(NotReauthenticated)
def not_reauthenticated(refused: NotReauthenticated) -> Response[Any]:
    return security_page(refused.actor, refused.current, 401, error=REAUTH_REFUSED, **totp_state(refused.actor))


def signed_in_again() -> Reauthenticated:
    """A form of the page that re-authenticates its person: their session, who they are and the
    second factor they gave; NotReauthenticated if the password or code is wrong."""
    form, current, actor = posted_by_session()
    person_only(actor)
    attempt = counted(actor.label)
    try:
        used = reauthenticated(actor, form)
    except SignInRefused:  # WrongCode included
        raise NotReauthenticated(current, actor) from None
    attempt.succeeded()
    return current, actor, used


def totp_was_on(actor: Actor, used: SecondFactor) -> bool:
    """Whether the pool asked `actor` a code (a passkey's sign-in does not tell: the pool is asked)."""
    return used in ("totp", "recovery_code") or (used == "passkey" and pool().totp_on(actor.label))


@router.post("/console/security/recovery-codes")
def new_recovery_codes() -> Response[Any]:
    """Ten new recovery codes, shown once; the earlier ones stop working."""
    current, actor, used = signed_in_again()
    if not totp_was_on(actor, used):
        return security_page(actor, current, 409, error="Two-step sign-in is off: turn it on first.", totp_on=False)
    codes = issue_codes(recovery_codes(), actor.id, recovery_code_key())
    audit.record(actor, "person.recovery_codes_issued", actor.id)
    return security_page(actor, current, codes=codes, totp_on=True, codes_left=len(codes))


@router.post("/console/security/totp/off")
def turn_off_totp() -> Response[Any]:
    """TOTP off, after the person signed in again; their recovery codes go with it."""
    current, actor, used = signed_in_again()
    if totp_was_on(actor, used):
        pool().turn_off_totp(actor.label)
        recovery_codes().clear(actor.id)
        audit.record(actor, "person.totp_disabled", actor.id)
        logger.info("TOTP turned off", extra={"subject": actor.id})
    notice = "Two-step sign-in is off: a password alone signs you in."
    return security_page(actor, current, notice=notice, totp_on=False)
