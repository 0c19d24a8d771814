"""Invitations the stack's own user pool emails, through the console, against moto: an owner
invites a new address, Cognito makes the account (the email, written by the pool's trigger,
carries a temporary password), the invitee signs in with it, chooses a password and joins with
the invitation's role. An address that has an account already is shown to the inviter as a link,
once; a pool that cannot be reached answers 503 and leaves no open invitation."""

from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from shortlink.audit.queries import AuditQuery
from tests.integration.invitation_calls import recorded_account_creations
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console_people import PersonBrowser, signed_in

pytestmark = pytest.mark.one_account_per_module
TEMPORARY_PASSWORD = "Temporary-pass-1A"  # what Cognito's email would carry, set as moto does not send it


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    found = user_pool_in(template, monkeypatch)
    # Deployed with its own pool: Cognito emails invitations (not printed, as `make dev` does)
    monkeypatch.setenv("PEOPLE_PRINT_INVITATIONS", "false")
    monkeypatch.setenv("PEOPLE_POOL_SENDS_INVITATIONS", "true")
    services.reset()
    return found


@pytest.fixture
def workspace(aws) -> str:
    key = aws.new_api_key("before-people")
    return services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]


def invite(browser: PersonBrowser, email: str, role: str) -> dict[str, Any]:
    return browser.post(
        "/console/members/invite", {"csrf": browser.csrf("/console/members"), "email": email, "role": role}
    )


def test_an_invitee_signs_in_with_cognitos_temporary_password_sets_their_own_and_joins(
    handlers, pool, workspace, monkeypatch
):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    calls = recorded_account_creations(monkeypatch)
    invited = invite(browser, "new@example.com", "editor")
    assert invited["statusCode"] == 201, invited["body"]
    # Emailed: the page says so and shows no link
    assert "Invitation sent to new@example.com" in invited["body"]
    assert 'id="invitation-link"' not in invited["body"]
    [call] = calls
    link = call["ClientMetadata"]["link"]
    assert link.startswith("https://sho.rt/console/invitations/")
    assert call["ClientMetadata"]["role"] == "editor"
    user = pool.cognito.admin_get_user(UserPoolId=pool.local.user_pool_id, Username="new@example.com")
    assert user["UserStatus"] == "FORCE_CHANGE_PASSWORD"
    pool.cognito.admin_set_user_password(
        UserPoolId=pool.local.user_pool_id, Username="new@example.com", Password=TEMPORARY_PASSWORD, Permanent=False
    )
    # The invitation's page tells them where the temporary password is
    newcomer = PersonBrowser(handlers)
    path = link.split("sho.rt", 1)[1]
    page = newcomer.get(path)
    assert page["statusCode"] == 200
    assert "temporary password" in page["body"]
    # Signing up again is refused with a reason (the account exists); signing in asks a new password
    token = path.rsplit("/", 1)[1]
    form = {"token": token, "email": "new@example.com", "password": TEMPORARY_PASSWORD}
    sign_up = newcomer.post("/console/invitations/accept", {**form, "mode": "sign-up"})
    assert sign_up["statusCode"] == 422
    assert "has an account already: sign in" in sign_up["body"]
    challenge = newcomer.post("/console/invitations/accept", {**form, "mode": "sign-in"})
    assert challenge["statusCode"] == 200, challenge["body"]
    assert 'autocomplete="new-password"' in challenge["body"]
    assert "console_session" not in newcomer.cookies
    done = newcomer.post("/console/sign-in/challenge", {"answer": "Own-password-of-mine-1A"})
    assert (done["statusCode"], done["headers"].get("Location")) == (303, "/console"), done["body"]
    assert "Signed in as <strong>new@example.com</strong> (editor)" in newcomer.get("/console")["body"]
    members = {m.email: m.role for m in services.memberships().members_of(workspace)}
    assert members == {"owner@example.com": "owner", "new@example.com": "editor"}
    assert services.invitations().pending_for(workspace) == []
    # Their own password is the one now; the link is spent
    assert pool.access_token("new@example.com", "Own-password-of-mine-1A")
    assert PersonBrowser(handlers).get(path)["statusCode"] == 404
    joined = [e for e in services.audit_trail().page(workspace, AuditQuery()).entries if e.action == "member.joined"]
    assert len(joined) == 1


def test_an_address_with_an_account_falls_back_to_the_link_shown_once(handlers, pool, workspace, monkeypatch):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    known, known_password = pool.person("known@example.com")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    calls = recorded_account_creations(monkeypatch)
    invited = invite(browser, known.email, "viewer")
    assert invited["statusCode"] == 201, invited["body"]
    assert len(calls) == 1  # Cognito was asked, and could not welcome an account it has
    assert 'id="invitation-link"' in invited["body"]
    assert "has an account already" in invited["body"]
    link = invited["body"].split('id="invitation-link">', 1)[1].split("<", 1)[0]
    assert link.startswith("https://sho.rt/console/invitations/")
    # Shown once: the members page does not show it again
    assert link not in browser.get("/console/members")["body"]
    # They sign in with the password they have and join
    someone = PersonBrowser(handlers)
    token = link.rsplit("/", 1)[1]
    form = {"token": token, "email": known.email, "password": known_password, "mode": "sign-in"}
    joined = someone.post("/console/invitations/accept", form)
    assert (joined["statusCode"], joined["headers"].get("Location")) == (303, "/console"), joined["body"]
    assert services.memberships().role_in(workspace, known.subject) == "viewer"
    assert len(pool.cognito.list_users(UserPoolId=pool.local.user_pool_id)["Users"]) == 2


def test_a_pool_that_cannot_be_reached_answers_503_and_leaves_no_open_invitation(
    handlers, pool, workspace, monkeypatch
):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    csrf = browser.csrf("/console/members")
    # The pool the console is told of is gone (deleted, or in a region that is down)
    monkeypatch.setenv("PEOPLE_USER_POOL_ID", "us-east-1_NoSuchPool")
    services.reset()
    failed = browser.post("/console/members/invite", {"csrf": csrf, "email": "late@example.com", "role": "viewer"})
    assert failed["statusCode"] == 503
    assert "Traceback" not in failed["body"]
    assert services.invitations().pending_for(workspace) == []
    assert [m.email for m in services.memberships().members_of(workspace)] == ["owner@example.com"]
