"""Settings → Single sign-on: the workspace's own identity provider, which only its owners set up
(OIDC or SAML, in the stack's user pool), test with a sign-in through it, turn on and off, and
remove; each step in the audit log. The OIDC client secret goes to the pool's provider only: the
page never shows it again."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.audit.model import Action
from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import (
    Refused,
    browser_host,
    confirm_first,
    destinations,
    host,
    now,
    posted_by_session,
    query,
    requiring,
    shown,
)
from shortlink.console.sessions import Session
from shortlink.console.sso import SSO_PATH, login_state_cookie, redirect
from shortlink.people.actors import Actor
from shortlink.people.roles import OWNERSHIP
from shortlink.settings.sso import DEFAULT_ROLES
from shortlink.sso.authorize import authorize_url
from shortlink.sso.login_state import OwnerTest, start_login
from shortlink.sso.provider_setup import ProviderSetup, SsoSetupInvalid, SsoSetupState
from shortlink.sso.setup_form import DEFAULT_EMAIL_ATTRIBUTES, MAX_METADATA_CHARS, setup_request
from shortlink.sso.setup_steps import remove_setup, save_setup, switched
from shortlink.wiring import (
    console_session_secret,
    domain_claims,
    identity_providers,
    people_settings,
    provider_documents,
    sso_settings,
    sso_setups,
)

PATH = "/console/workspace/sso"
FIELDS = ("protocol", "issuer", "client_id", "metadata_url", "button_label", "default_role", "email_domains")
NOTICES = {
    "saved": "Saved, not yet on: test the sign-in through it.",
    "tested": "The test sign-in worked: you may turn single sign-on on.",
    "on": "Single sign-on is on.",
    "off": "Single sign-on is off.",
    "removed": "Single sign-on was removed.",
}

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def available() -> None:
    if not sso_settings().managed_login:
        raise Refused(404, "Single sign-on needs the stack's managed login (docs/sso.md): it is not deployed.")


def form_of(setup: ProviderSetup | None) -> forms.Form:
    if setup is None:
        return {"protocol": ["OIDC"], "default_role": ["viewer"]}
    values = {
        "protocol": setup.protocol,
        "issuer": setup.issuer,
        "client_id": setup.client_id,
        "metadata_url": setup.metadata_url,
        "button_label": setup.button_label,
        "default_role": setup.default_role,
        "email_domains": " ".join(setup.email_domains),
        "email_attribute": setup.email_attribute,
    }
    return {name: [value] for name, value in values.items()}


def setup_page(
    actor: Actor, current: Session, state: forms.FormState | None = None, status: int = 200
) -> Response[Any]:
    config = sso_settings()
    setup = sso_setups().get(actor.workspace_id) if config.managed_login else None
    pool = people_settings().user_pool_id
    base = f"https://{browser_host() or host()}"
    return shown(
        "sso_setup.html",
        actor,
        current,
        status,
        available=config.managed_login,
        setup=setup,
        form=state or forms.FormState(form_of(setup)),
        notice=NOTICES.get(query("done"), ""),
        roles=DEFAULT_ROLES,
        email_attributes=DEFAULT_EMAIL_ATTRIBUTES,
        max_metadata_kb=MAX_METADATA_CHARS // 1024,
        acs_url=f"{config.login_url}/saml2/idpresponse",
        entity_id=f"urn:amazon:cognito:sp:{pool}",
        oidc_redirect=f"{config.login_url}/oauth2/idpresponse",
        sign_in_link=f"{base}{SSO_PATH}?workspace={actor.workspace_id}",
    )


@router.get(PATH)
def sso_page() -> Response[Any]:
    current, actor = requiring(OWNERSHIP)
    return setup_page(actor, current)


def done(actor: Actor, action: Action, notice: str) -> Response[Any]:
    audit.record(actor, action, actor.workspace_id)
    logger.info("single sign-on set-up changed", extra={"action": action, "workspace_id": actor.workspace_id})
    return see_other(f"{PATH}?done={notice}")


@router.post(PATH)
def save() -> Response[Any]:
    """The settings saved into the pool's provider (made or updated): not yet on, to be tested."""
    form, current, actor = posted_by_session(OWNERSHIP)
    available()
    fields = {name: forms.value(form, name) for name in (*FIELDS, "client_secret", "email_attribute")}
    fields["metadata_document"] = (form.get("metadata_document") or [""])[0]
    shown_again = {name: values for name, values in form.items() if name not in ("client_secret", "csrf")}
    try:
        before = sso_setups().get(actor.workspace_id)
        loopback = sso_settings().documents_allow_loopback
        request = setup_request(fields, before, destinations(), loopback)
        verified = frozenset(each.name for each in domain_claims().of_workspace(actor.workspace_id) if each.verified)
        save_setup(
            request,
            actor.workspace_id,
            actor.label,
            now(),
            provider_documents(),
            identity_providers(),
            sso_setups(),
            verified,
        )
    except SsoSetupInvalid as error:
        return setup_page(actor, current, forms.FormState(shown_again, error.errors), error.status)
    return done(actor, "sso.provider_saved", "saved")


@router.get(f"{PATH}/test")
def test_sign_in() -> Response[Any]:
    """The owner signs in through the saved provider: back signed in as themself, it is tested.
    A link (the pages' form-action 'self' stops a form's redirect to another site), carrying the
    session's CSRF token, so that no other site's page starts an owner's test."""
    current, actor = requiring(OWNERSHIP)
    if not current.accepts_csrf(query("csrf"), console_session_secret()):
        raise Refused(403, "the link's security token is missing or stale: reload the page and retry")
    available()
    setup = sso_setups().get(actor.workspace_id)
    if setup is None:
        raise Refused(404, "Save the single sign-on settings before testing them.")
    if actor.kind != "person":
        raise Refused(403, "Sign in with your own account (not an API key) to test single sign-on.")
    callback_host = sso_settings().callback_url.split("/")[2]
    if browser_host() not in (None, callback_host):  # the sign-in's cookie must reach the callback
        raise Refused(409, f"Open the console on {callback_host} to test single sign-on.")
    test = OwnerTest(setup.version, actor.id, actor.label)
    login, cookie = start_login(now(), console_session_secret(), setup.provider_name, actor.workspace_id, test)
    return redirect(authorize_url(sso_settings(), login), [login_state_cookie(cookie)])


def switch(on: bool) -> Response[Any]:
    """Turned on (only once tested: only turned-on providers sign people in) or off."""
    _, _, actor = posted_by_session(OWNERSHIP)
    available()
    try:
        switched(sso_setups(), actor.workspace_id, on)
    except SsoSetupState as error:
        raise Refused(error.status, str(error)) from None
    return done(actor, "sso.provider_turned_on" if on else "sso.provider_turned_off", "on" if on else "off")


@router.post(f"{PATH}/on")
def turn_on() -> Response[Any]:
    return switch(True)


@router.post(f"{PATH}/off")
def turn_off() -> Response[Any]:
    return switch(False)


@router.post(f"{PATH}/remove")
def remove() -> Response[Any]:
    form, current, actor = posted_by_session(OWNERSHIP)
    available()
    question = "Remove this workspace's single sign-on? Its identity provider leaves the user pool."
    if (asking := confirm_first(form, actor, current, question, "Remove single sign-on", PATH)) is not None:
        return asking
    try:
        remove_setup(sso_setups(), identity_providers(), actor.workspace_id)
    except SsoSetupState as error:
        raise Refused(error.status, str(error)) from None
    return done(actor, "sso.provider_removed", "removed")
