"""Single sign-on: GET /console/sso sends the browser to the user pool's managed login (which
goes straight to the identity provider: the deploy-time one, or the workspace's own that an owner
set up and turned on, found by the email domain typed on the sign-in page or by the workspace's
sign-in link); GET /console/sso/callback checks its answer, makes the person a member of that
workspace on their first sign-in (or, started from an invitation's page, accepts that invitation;
or, an owner's test sign-in, marks the set-up tested) and starts their session. No token of the
pool is kept or reaches the page: the console's own session cookie is all."""

import hashlib
from typing import Any
from urllib.parse import urlencode, urlsplit

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from shortlink.console import audit
from shortlink.console.pages import HTML, PAGE_HEADERS, page, see_other
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
from shortlink.sso.id_tokens import SsoIdentity
from shortlink.sso.login_state import (
    LOGIN_STATE_COOKIE,
    LOGIN_STATE_LIFETIME,
    LoginState,
    OwnerTest,
    read_login_state,
    start_login,
)
from shortlink.sso.provider_setup import ProviderSetup, SsoSetupState
from shortlink.sso.refusals import LoginServiceUnavailable, SsoRefused
from shortlink.sso.setup_form import email_domain
from shortlink.sso.setup_steps import record_test
from shortlink.wiring import (
    attempt_log,
    console_session_secret,
    domain_claims,
    invitations,
    managed_login,
    memberships,
    provisioned_groups,
    provisioned_users,
    sso_settings,
    sso_setups,
    sso_signing_keys,
)

SSO_PATH = "/console/sso"
SETUP_PATH = "/console/workspace/sso"
INVITATION_COOKIE = "console_sso_invitation"
MAX_QUERY_CHARS = 320
MAX_EMAIL_CHARS = 254
MAX_WORKSPACE_CHARS = 128

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


def by_email() -> bool:
    """Whether the sign-in page offers single sign-on by a typed email (workspaces' own providers)."""
    return sso_settings().managed_login


def configured() -> None:
    if not sso_settings().enabled:
        raise Refused(404, "Single sign-on is not set up for this console.")


def turned_on_setup(workspace_id: str) -> ProviderSetup:
    """The workspace's own provider, if an owner turned it on."""
    setup = sso_setups().get(workspace_id) if workspace_id and sso_settings().managed_login else None
    if setup is None or not setup.on:
        raise Refused(404, "Single sign-on is not on for this workspace: sign in with your password.")
    return setup


def setup_of_email(email: str) -> ProviderSetup:
    """The turned-on provider of the workspace whose set-up names this address's domain."""
    domain = email_domain(email.rpartition("@")[2]) if "@" in email and len(email) <= MAX_EMAIL_CHARS else None
    if domain is None:
        raise Refused(400, "Type your work email address (name@example.com) to sign in with single sign-on.")
    owner = sso_setups().domain_owner(domain) if sso_settings().managed_login else None
    # Only while the workspace still holds the domain, verified by DNS: its removal ends the routing.
    claim = domain_claims().claim_of(domain) if owner is not None else None
    if owner is None or claim is None or not claim.verified or claim.workspace != owner:
        raise Refused(404, f"No workspace signs in {domain} addresses with single sign-on: use your password.")
    return turned_on_setup(owner)


def redirect(location: str, cookies: list[Cookie] | None = None) -> Response[Any]:
    return Response(302, HTML, "", headers={**PAGE_HEADERS, "Location": location}, cookies=cookies)


@router.get(SSO_PATH)
def start_sign_in() -> Response[Any]:
    parameters = current_event().query_string_parameters or {}
    if email := parameters.get("email", "").strip():
        # The sign-in page's form lands here, and a form may not be sent on to another site (the
        # pages' form-action 'self'): a page with the link to the provider's sign-in answers it.
        found = setup_of_email(email)
        link = f"{SSO_PATH}?{urlencode({'workspace': found.workspace_id})}"
        return page("sso_continue.html", label=found.button_label, link=link)
    workspace = parameters.get("workspace", "").strip()
    if workspace and not (len(workspace) <= MAX_WORKSPACE_CHARS and workspace.isascii() and workspace.isprintable()):
        raise Refused(404, "Single sign-on is not on for this workspace: sign in with your password.")
    setup = turned_on_setup(workspace) if workspace else None
    if setup is None:
        configured()
    # The sign-in's cookie must be set on the host the managed login sends the browser back to.
    callback = urlsplit(sso_settings().callback_url)
    host = browser_host()
    token = invitation_token()
    if host is not None and host != callback.netloc:
        raw = current_event().raw_query_string
        carried = f"?{raw}" if raw and len(raw) <= MAX_QUERY_CHARS else ""
        return redirect(f"{callback.scheme}://{callback.netloc}{SSO_PATH}{carried}")
    if setup is None:
        login, cookie = start_login(now(), console_session_secret())
    else:
        login, cookie = start_login(now(), console_session_secret(), setup.provider_name, setup.workspace_id)
    # The invitation's token rides in a cookie of the sign-in's lifetime, never through the IdP.
    cookies = [login_state_cookie(cookie)]
    if token:
        cookies.append(login_state_cookie(token, name=INVITATION_COOKIE))
    elif cookie_value(current_event().cookies or [], INVITATION_COOKIE):  # an earlier, abandoned one
        cookies.append(forgotten()[1])
    return redirect(authorize_url(sso_settings(), login), cookies)


@router.get(f"{SSO_PATH}/callback")
def callback() -> Response[Any]:
    config = sso_settings()
    if not config.managed_login:
        raise Refused(404, "Single sign-on is not set up for this console.")
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
    assert login is not None  # completed_sign_in refuses a callback without its sign-in
    if login.test is not None:
        return tested(login, login.test, identity)
    person = Person(identity.subject, identity.email)
    token = cookie_value(event.cookies or [], INVITATION_COOKIE)
    if token:
        return accepted(token, person)
    if login.provider:
        setup = sso_setups().get(login.workspace)
        if setup is None or not setup.on or setup.provider_name != login.provider:
            return refused_page(403, "Single sign-on through this provider is not on for the workspace any more.")
        return joined_through(person, setup.workspace_id, setup.default_role, setup.button_label)
    return joined_through(person, config.workspace, config.default_role, config.provider_name)


def joined_through(person: Person, workspace: str, default_role: str, provider: str) -> Response[Any]:
    """`person`, signed in through `provider`, works in `workspace`: a member already, or one now
    with the role their SCIM groups give, else `default_role` (unless an owner removed them)."""
    try:
        default = role_named(default_role) or "viewer"
        role = arriving_role(provisioned_users(), provisioned_groups(), workspace, person.email, default)
        joined = join_on_first_sign_in(memberships(), person, workspace, role, now(), f"single sign-on ({provider})")
    except MemberRemoved as refusal:
        logger.info("single sign-on refused: a removed member", extra={"workspace_id": workspace})
        return refused_page(403, f"{str(refusal).capitalize()}.")
    if joined is not None:
        audit.record(Actor.of_member(joined), "member.joined", person.subject)
        logger.info("single sign-on: a new member", extra={"workspace_id": workspace, "role": role})
    answer = start_person_session(person, workspace)
    answer.cookies.extend(forgotten())
    return answer


def tested(login: LoginState, test: OwnerTest, identity: SsoIdentity) -> Response[Any]:
    """An owner's test sign-in: through the workspace's provider, as themself (the same email),
    while still its owner; the set-up is then tested in the version the test started with. The
    owner's own session goes on: no session is started here."""
    if identity.email != test.email.lower():
        message = f"The test signed in {identity.email}, not you ({test.email}): sign in at the provider as yourself."
        return refused_page(403, message)
    owner = memberships().membership_in(login.workspace, test.subject, fresh=True)
    if owner is None or owner.role != "owner":
        return refused_page(403, "Only an owner of the workspace tests its single sign-on.")
    try:
        record_test(sso_setups(), login.workspace, test.version, identity.email)
    except SsoSetupState as error:
        return refused_page(error.status, str(error))
    audit.record(Actor.of_member(owner), "sso.provider_tested", login.workspace)
    return see_other(f"{SETUP_PATH}?done=tested", forgotten())


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
