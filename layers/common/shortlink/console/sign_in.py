"""Signing in with an API key (a session cookie; the key never reaches the browser) and out."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.api_keys import hash_api_key
from shortlink.access.rate_limits import take_sign_in_attempt
from shortlink.console import audit, forms
from shortlink.console.pages import ended_session_cookie, page, see_other, session_cookie
from shortlink.console.plumbing import (
    SIGN_IN,
    acting_key,
    current_event,
    now,
    posted_by_session,
    posted_form,
    query,
)
from shortlink.console.sessions import issue_session
from shortlink.console.sso import button_label, by_email
from shortlink.people.actors import Actor
from shortlink.settings.edge import EdgeSettings
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.web.addresses import client_ip
from shortlink.wiring import (
    api_key_store,
    attempt_log,
    console_session_secret,
    people_settings,
    person_sessions,
    settings_of,
)

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped

# Why a session ended under its person (`?why=`, shortlink.console.plumbing.SignInNeeded): a fixed
# vocabulary, so the page never repeats what a link put in its address.
SIGN_IN_REASONS = {
    "removed": "You were removed from that workspace (or the key's maker was): ask an owner to invite you again.",
    "ended": "Your session ended: you signed out elsewhere, or the key was revoked or has expired. Sign in again.",
}


@router.get("/console/sign-in")
def sign_in_page() -> Response[Any]:
    people = people_settings()
    reason = SIGN_IN_REASONS.get(query("why"))
    return page(
        "sign_in.html",
        error=None,
        reason=reason,
        people=people.enabled,
        passkeys=people.passkeys,
        sso_label=button_label(),
        sso_by_email=by_email(),
    )


@router.post("/console/sign-in")
def sign_in() -> Response[Any]:
    form = posted_form()
    # The viewer's address (behind the edge, CloudFront-Viewer-Address; never the edge's own).
    client = client_ip(current_event().raw_event, settings_of(EdgeSettings).secret)
    limit = settings_of(RateLimitSettings).sign_in_attempts_per_window
    attempt = take_sign_in_attempt(str(client or "unknown"), limit, now(), attempt_log())
    plaintext = forms.value(form, "api_key")
    key_hash = hash_api_key(plaintext)
    key = api_key_store().find_by_hash(key_hash, fresh=True) if 0 < len(plaintext) <= 128 else None
    actor = acting_key(key, fresh=True) if key is not None else None
    if key is None or key.state(now()) != "active" or actor is None:
        if key is not None:  # a known key, revoked, expired or its maker gone: its workspace learns of it
            audit.record(Actor.of_key(key), "session.sign_in_failed", key.key_id)
        return page(
            "sign_in.html",
            401,
            error="This API key is not valid (or was revoked).",
            people=people_settings().enabled,
            sso_label=button_label(),
            sso_by_email=by_email(),
        )
    attempt.succeeded()  # only failures count against the address
    _, cookie = issue_session(key_hash, now(), console_session_secret(), key.session_generation, key.expires_at)
    audit.record(actor, "session.signed_in", key.key_id)
    logger.info("console sign-in", extra={"key_id": key.key_id})
    return see_other("/console", [session_cookie(cookie)])


@router.post("/console/sign-out")
def sign_out() -> Response[Any]:
    """Ends the session on the server too: its cookie, kept or copied, is refused from now on."""
    _, current, actor = posted_by_session()
    if current.is_person:
        person_sessions().end_sessions(current.subject, now())  # their access tokens on the API too
    else:
        api_key_store().end_sessions(current.key_hash)
    audit.record(actor, "session.signed_out", actor.id)
    logger.info("console sign-out", extra={"actor": actor.id})
    return see_other(SIGN_IN, [ended_session_cookie()])
