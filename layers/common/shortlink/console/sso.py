"""Single sign-on: GET /console/sso sends the browser to the user pool's managed login (which
goes straight to the identity provider); GET /console/sso/callback checks its answer, makes the
person a member of the configured workspace on their first sign-in (or, started from an
invitation's page, accepts that invitation) and starts their session. No token of the pool is
kept or reaches the page: the console's own session cookie is all."""

import hashlib
from typing import Any
from urllib.parse import quote, urlsplit

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from shortlink.console import audit
from shortlink.console.pages import HTML, PAGE_HEADERS, page
from shortlink.console.people_sessions import start_person_session
from shortlink.console.plumbing import Refused, browser_host, current_event, now
from shortlink.console.sessions import cookie_value
from shortlink.errors import StorageUnavailable
from shortlink.people.actors import Actor
from shortlink.people.errors import InvitationForAnother, InvitationNotValid, MemberRemoved
from shortlink.people.invitations import MAX_TOKEN_CHARS, accept
from shortlink.people.members import join_on_first_sign_in
from shortlink.people.model import Membership, Person, role_named
from shortlink.scim.provisioning import arriving_role
from shortlink.sso.authorize import authorize_url
from shortlink.sso.callback import completed_sign_in
from shortlink.sso.login_state import LOGIN_STATE_COOKIE, LOGIN_STATE_LIFETIME, read_login_state, start_login
from shortlink.sso.refusals import LoginServiceUnavailable, SsoRefused
from shortlink.wiring import (
    attempt_log,
    console_session_secret,
    invitations,
    managed_login,
    memberships,
    provisioned_groups,
    provisioned_users,
    sso_settings,
    sso_signing_keys,
)

SSO_PATH = "/console/sso"
INVITATION_COOKIE = "console_sso_invitation"

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def login_state_cookie(
    value: str, max_age: int = int(LOGIN_STATE_LIFETIME.total_seconds()), name: str = LOGIN_STATE_COOKIE
) -> Cookie:
    """Readable by no script, sent only to the SSO routes over HTTPS, and with the managed login's
    redirect back (a top-level GET from another site: SameSite=Lax, not Strict)."""
    return Cookie(
        name=name,
        value=value,
        path=SSO_PATH,
        secure=True,
        http_only=True,
        same_site=SameSite.LAX_MODE,
        max_age=max_age,
    )


def claim_state(state: str, expires_at: int) -> bool:
    """A sign-in's state is used once: a window of one use in the counters table, kept until
    the state would expire anyway (the table's TTL then removes it)."""
    subject = f"sso-state#{hashlib.sha256(state.encode()).hexdigest()}"
    return attempt_log().take(subject, 0, 1, expires_at)


def forgotten() -> list[Cookie]:
    """The browser's sign-in and the invitation it came with, forgotten."""
    return [login_state_cookie("", max_age=0), login_state_cookie("", max_age=0, name=INVITATION_COOKIE)]


def refused_page(status: int, message: str) -> Response[Any]:
    """A sign-in that did not complete: its page, and the browser's sign-in forgotten."""
    return page("error.html", status, cookies=forgotten(), message=message)


def invitation_token() -> str:
    """The invitation the sign-in was started from (its page's button), or empty."""
    token = (current_event().query_string_parameters or {}).get("invitation", "")
    return token if 0 < len(token) <= MAX_TOKEN_CHARS and token.isascii() and token.isprintable() else ""


def button_label() -> str | None:
    """What the sign-in page's SSO button says after "Sign in with", or None without SSO."""
    return sso_settings().button_label if sso_settings().enabled else None


def configured() -> None:
    if not sso_settings().enabled:
        raise Refused(404, "Single sign-on is not set up for this console.")


def redirect(location: str, cookies: list[Cookie] | None = None) -> Response[Any]:
    return Response(302, HTML, "", headers={**PAGE_HEADERS, "Location": location}, cookies=cookies)


@router.get(SSO_PATH)
def start_sign_in() -> Response[Any]:
    configured()
    # The sign-in's cookie must be set on the host the managed login sends the browser back to.
    callback = urlsplit(sso_settings().callback_url)
    host = browser_host()
    token = invitation_token()
    if host is not None and host != callback.netloc:
        carried = f"?invitation={quote(token, safe='')}" if token else ""
        return redirect(f"{callback.scheme}://{callback.netloc}{SSO_PATH}{carried}")
    login, cookie = start_login(now(), console_session_secret())
    # The invitation's token rides in a cookie of the sign-in's lifetime, never through the IdP.
    cookies = [login_state_cookie(cookie)]
    if token:
        cookies.append(login_state_cookie(token, name=INVITATION_COOKIE))
    elif cookie_value(current_event().cookies or [], INVITATION_COOKIE):  # an earlier, abandoned one
        cookies.append(forgotten()[1])
    return redirect(authorize_url(sso_settings(), login), cookies)


@router.get(f"{SSO_PATH}/callback")
def callback() -> Response[Any]:
    configured()
    config = sso_settings()
    event = current_event()
    login = read_login_state(cookie_value(event.cookies or [], LOGIN_STATE_COOKIE), now(), console_session_secret())
    query = dict(event.query_string_parameters or {})
    try:
        identity = completed_sign_in(
            query, login, config, managed_login(), sso_signing_keys(), claim_state, now().timestamp()
        )
    except SsoRefused as refusal:
        logger.info("single sign-on refused", extra={"reason": str(refusal)})
        return refused_page(refusal.status, str(refusal))
    except (LoginServiceUnavailable, StorageUnavailable) as error:
        logger.error("single sign-on: the login service failed: %s", error)
        return refused_page(502, "The login service did not answer as it should: try again shortly.")
    person = Person(identity.subject, identity.email)
    token = cookie_value(event.cookies or [], INVITATION_COOKIE)
    if token:
        return accepted(token, person)
    added_by = f"single sign-on ({config.provider_name})"
    try:
        default = role_named(config.default_role) or "viewer"
        role = arriving_role(provisioned_users(), provisioned_groups(), config.workspace, person.email, default)
        joined = join_on_first_sign_in(memberships(), person, config.workspace, role, now(), added_by)
    except MemberRemoved as refusal:
        logger.info("single sign-on refused: a removed member", extra={"workspace_id": config.workspace})
        return refused_page(403, f"{str(refusal).capitalize()}.")
    if joined is not None:
        audit.record(Actor.of_member(joined), "member.joined", person.subject)
        logger.info("single sign-on: a new member", extra={"workspace_id": config.workspace, "role": role})
    answer = start_person_session(person, config.workspace)
    answer.cookies.extend(forgotten())
    return answer


def accepted(token: str, person: Person) -> Response[Any]:
    """`person`, signed in through the IdP from an invitation's page, joins its workspace with its
    role (a removal from that workspace is cleared) and works there."""
    # No password is typed here: the invitation must name this person's address (accept checks
    # it), or a page that sends a browser with a live IdP session here could join it to any workspace.
    try:
        joined = accept(invitations(), memberships(), token, person, now())
    except InvitationForAnother as refusal:
        return refused_page(403, f"{str(refusal).capitalize()}.")
    except InvitationNotValid as refusal:
        return refused_page(404, f"{str(refusal).capitalize()}.")
    if isinstance(joined, Membership):  # a member already keeps their role: nobody joined
        audit.record(Actor.of_member(joined), "member.joined", person.subject)
    logger.info("invitation accepted with single sign-on", extra={"workspace_id": joined.workspace_id})
    answer = start_person_session(person, joined.workspace_id)
    answer.cookies.extend(forgotten())
    return answer
