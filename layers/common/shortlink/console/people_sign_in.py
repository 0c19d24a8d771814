"""People signing in to the console with the user pool: email and password, then a TOTP code or
a new password where the pool asks one; signing up or in through an invitation's link; switching
workspace, leaving one. Each attempt is counted per address and per account before the pool is
asked, and given back once the pool finds it right: only failures stay counted."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.rate_limits import SignInAttempt, take_sign_in_attempt
from shortlink.console import audit, forms
from shortlink.console.challenges import CHALLENGE_COOKIE, challenge_cookie, open_challenge, seal_challenge
from shortlink.console.pages import page, see_other, session_cookie
from shortlink.console.people_sessions import start_person_session
from shortlink.console.person_audit import record_for_person
from shortlink.console.plumbing import (
    Refused,
    current_event,
    now,
    posted_by_session,
    posted_form,
)
from shortlink.console.sessions import Session, cookie_value, issue_person_session
from shortlink.console.sso import button_label
from shortlink.console.workspaces import a_persons
from shortlink.people.actors import Actor
from shortlink.people.errors import (
    InvalidMemberOption,
    InvitationForAnother,
    InvitationNotValid,
    SignInRefused,
    WeakPassword,
    WrongCode,
)
from shortlink.people.invitations import MAX_TOKEN_CHARS, accept, hash_token
from shortlink.people.members import checked_email
from shortlink.people.model import Invitation, Membership, Person, plausible_id
from shortlink.people.offboarding import leave
from shortlink.people.ports import Challenge, UserPool
from shortlink.people.recovery_codes import redeem
from shortlink.settings.edge import EdgeSettings
from shortlink.settings.people import POOL_PASSWORD_RULE
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.web.addresses import client_ip
from shortlink.wiring import (
    api_key_store,
    attempt_log,
    console_session_secret,
    invitations,
    memberships,
    people_settings,
    recovery_code_key,
    recovery_codes,
    settings_of,
    user_pool,
    workspace_names,
)

MAX_PASSWORD_CHARS = 256
REFUSED = "This email and password do not match an account (or the code is wrong)."

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def pool() -> UserPool:
    """The user pool, or a 404 where the stack has none (a key-only console)."""
    if not people_settings().enabled:
        raise Refused(404, "This console signs in with API keys only.")
    return user_pool()


def counted(email: str) -> SignInAttempt:
    """Count one attempt of this client's address and one of the account, before the pool is
    asked; the caller gives it back once the pool finds the credentials right (only failures
    stay counted)."""
    client = client_ip(current_event().raw_event, settings_of(EdgeSettings).secret)
    limit = settings_of(RateLimitSettings).sign_in_attempts_per_window
    per_account = people_settings().sign_in_attempts_per_account
    return take_sign_in_attempt(str(client or "unknown"), limit, now(), attempt_log(), email, per_account)


def credentials(form: forms.Form) -> tuple[str, str]:
    password = forms.value(form, "password")
    if not 0 < len(password) <= MAX_PASSWORD_CHARS:
        raise InvalidMemberOption("password", f"password: 1 to {MAX_PASSWORD_CHARS} characters")
    return checked_email(forms.value(form, "email")), password


def signed_in(person: Person, invitation_token: str) -> Response[Any]:
    """The session of `person`, after accepting the invitation if one came along."""
    workspace = None
    if invitation_token:
        joined = accept(invitations(), memberships(), invitation_token, person, now())
        workspace = joined.workspace_id
        if isinstance(joined, Membership):  # a member already keeps their role: nobody joined
            audit.record(Actor.of_member(joined), "member.joined", person.subject)
        logger.info("invitation accepted", extra={"subject": person.subject, "workspace_id": workspace})
    answer = start_person_session(person, workspace)
    answer.cookies.append(challenge_cookie(""))
    return answer


def next_step(outcome: Person | Challenge, invitation_token: str, attempt: SignInAttempt) -> Response[Any]:
    """Signed in, or the page that asks the pool's question (its handle sealed in a cookie);
    either way `attempt` was no failure."""
    if isinstance(outcome, Person):
        attempt.succeeded()
        return signed_in(outcome, invitation_token)
    attempt.passed()
    sealed = seal_challenge(outcome, invitation_token, now(), console_session_secret())
    return page("sign_in_challenge.html", kind=outcome.kind, error=None, cookies=[challenge_cookie(sealed)])


def refused_page(template: str, status: int, message: str, **context: Any) -> Response[Any]:
    return page(template, status, error=message, **context)


@router.post("/console/sign-in/person")
def sign_in_person() -> Response[Any]:
    form = posted_form()
    try:
        email, password = credentials(form)
        attempt = counted(email)
    except InvalidMemberOption:
        return refused_page("sign_in.html", 401, REFUSED, people=True)
    try:
        return next_step(pool().sign_in(email, password), "", attempt)
    except SignInRefused:
        audit.record_failed_sign_in(email, "password")  # their workspaces' owners and admins read it
        return refused_page("sign_in.html", 401, REFUSED, people=True)


@router.post("/console/sign-in/challenge")
def answer_challenge() -> Response[Any]:
    form = posted_form()
    opened = open_challenge(
        cookie_value(current_event().cookies or [], CHALLENGE_COOKIE), now(), console_session_secret()
    )
    if opened is None or opened[0].kind == "passkey":  # a passkey's is answered by its own route
        return refused_page("sign_in.html", 401, "This sign-in took too long: start again.", people=True)
    challenge, invitation_token = opened
    if challenge.kind == "totp" and forms.value(form, "recovery_code"):
        return recovery_code_sign_in(challenge, invitation_token, forms.value(form, "recovery_code"))
    answer = forms.value(form, "answer")
    if not 0 < len(answer) <= MAX_PASSWORD_CHARS:
        return refused_page("sign_in_challenge.html", 422, "Enter the answer asked for.", kind=challenge.kind)
    attempt = counted(challenge.email)
    try:
        return next_step(pool().answer(challenge, answer), invitation_token, attempt)
    except WrongCode:
        # The pool keeps its session for another code: asked again, the failure counted and recorded.
        mfa_failed(challenge.email)
        return refused_page("sign_in_challenge.html", 401, WRONG_CODE, kind=challenge.kind)
    except SignInRefused:
        # The pool's session is spent or gone: the person starts again from the password.
        answer_page = refused_page("sign_in.html", 401, REFUSED, people=True)
        answer_page.cookies.append(challenge_cookie(""))
        return answer_page
    except WeakPassword as error:
        return refused_page("sign_in_challenge.html", 422, str(error), kind=challenge.kind)


WRONG_CODE = "That code is not right: enter the current one."


def mfa_failed(email: str) -> None:
    """A wrong second factor after a right password: an entry in each of the person's workspaces."""
    person = pool().person_named(email)
    if person is not None:
        record_for_person(person, "session.mfa_failed")


def recovery_code_sign_in(challenge: Challenge, invitation_token: str, code: str) -> Response[Any]:
    """The TOTP challenge (its password was right) answered with a recovery code, spent once: the
    console's session starts without the pool's last step (it keeps no token of the pool anyway).
    A wrong code asks again, as a wrong TOTP code does, counted against the same limits."""
    attempt = counted(challenge.email)
    person = pool().person_named(challenge.email)
    if person is None or not redeem(recovery_codes(), person.subject, code, recovery_code_key()):
        if person is not None:
            record_for_person(person, "session.mfa_failed")
        return refused_page("sign_in_challenge.html", 401, "That recovery code is not right, or was used.", kind="totp")
    attempt.succeeded()
    record_for_person(person, "person.recovery_code_used")
    logger.info("recovery code used", extra={"subject": person.subject})
    return signed_in(person, invitation_token)


@router.get("/console/invitations/<token>")
def invitation_page(token: str) -> Response[Any]:
    found = invitations().find(hash_token(token), now()) if 0 < len(token) <= MAX_TOKEN_CHARS else None
    if found is None:
        raise Refused(404, "This invitation is unknown, was used already, or has expired.")
    return invitation_shown(found, token)


def invitation_shown(found: Invitation, token: str, status: int = 200, error: str | None = None) -> Response[Any]:
    """The invitation's page: which workspace (its name, else its id), who invites, as what, and
    the password a new account needs, all before anything is submitted."""
    name = workspace_names().names_of([found.workspace_id]).get(found.workspace_id, "")
    return page(
        "invitation.html", status, invitation=found, token=token, error=error, sso_label=button_label(),
        workspace=name or found.workspace_id, password_rule=POOL_PASSWORD_RULE,
    )  # fmt: skip


@router.post("/console/invitations/accept")
def accept_invitation() -> Response[Any]:
    """Sign up (a new account for the invited address) or sign in (the invited address's
    account), then join: only the invited address may accept, whichever way."""
    form = posted_form()
    token = forms.value(form, "token")
    found = invitations().find(hash_token(token), now()) if 0 < len(token) <= MAX_TOKEN_CHARS else None
    if found is None:
        raise Refused(404, "This invitation is unknown, was used already, or has expired.")
    try:
        email, password = credentials(form)
        signing_up = forms.value(form, "mode") == "sign-up"
        if email != found.email:
            verb = "sign up" if signing_up else "sign in"
            raise InvalidMemberOption("email", f"email: {verb} with the invited address, {found.email}")
        attempt = counted(email)
        if signing_up:
            joined = signed_in(pool().sign_up(email, password), token)
            attempt.succeeded()
            return joined
        return next_step(pool().sign_in(email, password), token, attempt)
    except (InvalidMemberOption, WeakPassword) as error:
        return invitation_shown(found, token, 422, str(error))
    except SignInRefused:
        return invitation_shown(found, token, 401, REFUSED)
    except InvitationForAnother as error:
        return invitation_shown(found, token, 403, str(error))
    except InvitationNotValid as error:
        raise Refused(404, str(error)) from error


def chosen_workspace() -> tuple[Session, Actor, str]:
    """A person's post naming one of their workspaces: the session, its actor and that workspace."""
    form, current, actor = posted_by_session()
    a_persons(current)
    workspace_id = forms.value(form, "workspace_id")
    if not plausible_id(workspace_id) or memberships().role_in(workspace_id, current.subject) is None:
        raise Refused(403, "you are not a member of that workspace")
    return current, actor, workspace_id


@router.post("/console/workspace")
def switch_workspace() -> Response[Any]:
    """The same person's session in another workspace of theirs (a new CSRF token with it)."""
    current, actor, workspace_id = chosen_workspace()
    _, cookie = issue_person_session(current.subject, workspace_id, now(), console_session_secret(), current.generation)
    logger.info("workspace switched", extra={"subject": actor.id, "workspace_id": workspace_id})
    return see_other("/console", [session_cookie(cookie)])


@router.post("/console/workspace/leave")
def leave_workspace() -> Response[Any]:
    """The person leaves one of their workspaces (not as its last owner), and the keys that act
    for them there end; in the workspace the session is in, that session ends with it."""
    current, actor, workspace_id = chosen_workspace()
    departure = leave(memberships(), api_key_store(), workspace_id, current.subject, now())
    member = Actor.of_member(departure.membership)
    audit.record(member, "member.left", current.subject)
    for key_id in departure.revoked_keys:
        audit.record(member, "key.revoked", key_id)
    logger.info("workspace left", extra={"subject": actor.id, "workspace_id": workspace_id})
    return see_other("/console/workspaces")
