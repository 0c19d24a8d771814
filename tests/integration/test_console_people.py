"""People in the console, against moto (its user pool made from people.yaml): signing in with a
password and a TOTP code, invitations taken once, roles enforced on every form, a member removed
mid-session out at their next request, no other workspace's data shown, and sign-in attempts
counted per address (IPv6 by /64) and per account."""

import json
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from shortlink.audit.queries import AuditQuery
from shortlink.people.invitations import hash_token
from shortlink.people.members import join_on_first_sign_in
from shortlink.people.model import Invitation
from shortlink.settings.rate_limits import RateLimitSettings
from tests.events import http_event
from tests.integration.people import Authenticator, Pool, user_pool_in

pytestmark = pytest.mark.one_account_per_module
ORIGIN = "https://sho.rt"
COOKIES = ("console_session", "console_challenge", "console_recent_passkey")


class PersonBrowser:
    """A browser on the console: keeps its cookies, sends Origin with each post, from `address`."""

    def __init__(self, handlers: dict[str, Any], address: str = "203.0.113.9") -> None:
        self.handlers = handlers
        self.address = address
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: Mapping[str, str] | None = None) -> dict[str, Any]:
        headers = {"host": "sho.rt"}
        body = None
        if form is not None:
            headers.update({"origin": ORIGIN, "content-type": "application/x-www-form-urlencoded"})
            body = urlencode(form)
        event = http_event(method, path, headers=headers, body=body, route="/console/{proxy+}", source_ip=self.address)
        event["cookies"] = [f"{name}={value}" for name, value in self.cookies.items()]
        answer: dict[str, Any] = self.handlers["ConsoleFunction"](event)
        for cookie in answer.get("cookies", []):
            name, _, rest = cookie.partition("=")
            if name in COOKIES:
                value = rest.split(";")[0]
                if value:
                    self.cookies[name] = value
                else:
                    self.cookies.pop(name, None)
        return answer

    def get(self, path: str) -> dict[str, Any]:
        return self.request("GET", path)

    def post(self, path: str, form: Mapping[str, str]) -> dict[str, Any]:
        return self.request("POST", path, form)

    def csrf(self, path: str = "/console") -> str:
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get(path)["body"])
        assert found, "no CSRF token on the page"
        return found.group(1)

    def sign_in(self, email: str, password: str) -> dict[str, Any]:
        return self.post("/console/sign-in/person", {"email": email, "password": password})


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    monkeypatch.setenv("MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP", "true")  # moto then checks the codes
    return user_pool_in(template, monkeypatch)


@pytest.fixture
def workspace(aws) -> str:
    """A key-only account from before people (the admin command's key), with a link."""
    key = aws.new_api_key("before-people")
    return services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]


def signed_in(browser: PersonBrowser, email: str, password: str) -> PersonBrowser:
    answer = browser.sign_in(email, password)
    assert (answer["statusCode"], answer["headers"].get("Location")) == (303, "/console"), answer["body"]
    return browser


def invitation_link(capsys: pytest.CaptureFixture[str], email: str) -> str:
    """The link of the invitation printed for `email` (as make dev prints it)."""
    printed = capsys.readouterr().out
    found = re.findall(rf"Invitation email to {re.escape(email)}:.*?\n(https?://\S+)", printed, re.S)
    assert found, printed
    return str(found[-1]).split("sho.rt", 1)[1]


def test_a_person_signs_in_and_the_session_never_shows_a_token(handlers, pool, workspace):
    person, password = pool.member("owner@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    page = browser.get("/console")
    assert page["statusCode"] == 200
    assert "owner@example.com" in page["body"]
    # The session is our own signed cookie, HttpOnly: no JWT of the pool anywhere the page reaches
    assert not re.search(r"eyJ[\w-]+\.[\w-]+\.", page["body"] + str(page.get("cookies")))
    assert "eyJ" not in browser.cookies["console_session"]
    wrong = PersonBrowser(handlers).sign_in(person.email, "not-the-password-1A")
    assert wrong["statusCode"] == 401
    assert "do not match" in wrong["body"]


def test_totp_is_set_up_from_the_console_and_then_asked_at_each_sign_in(handlers, pool, workspace):
    person, password = pool.member("editor@example.com", workspace, "editor")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    started = browser.post("/console/security/totp", {"csrf": browser.csrf("/console/security"), "password": password})
    secret = re.search(r'id="totp-secret">([A-Za-z2-7]+)<', started["body"])
    assert secret, started["body"]
    assert f"otpauth://totp/Shortlink:{person.email.replace('@', '%40')}?secret={secret.group(1)}" in started["body"]
    totp = Authenticator(secret.group(1))
    csrf = browser.csrf("/console/security")
    refused = browser.post("/console/security/totp/confirm", {"csrf": csrf, "password": password, "code": "000000"})
    assert refused["statusCode"] == 401
    confirmed = browser.post(
        "/console/security/totp/confirm", {"csrf": csrf, "password": password, "code": totp.fresh()}
    )
    assert 'id="totp-on"' in confirmed["body"], confirmed["body"]
    # Only the code that turned it on is in the audit log, by the person
    entries = services.audit_trail().page(workspace, AuditQuery()).entries
    assert [e.actor.id for e in entries if e.action == "person.totp_enabled"] == [person.subject]
    # From now on a password alone is not enough: the pool asks the code
    again = PersonBrowser(handlers)
    challenge = again.sign_in(person.email, password)
    assert challenge["statusCode"] == 200
    assert 'autocomplete="one-time-code"' in challenge["body"]
    assert "console_session" not in again.cookies
    wrong = again.post("/console/sign-in/challenge", {"answer": "123456" if totp.fresh() != "123456" else "654321"})
    assert wrong["statusCode"] == 401
    assert "console_session" not in again.cookies
    # One wrong code asks for the code again, not the email and password: the next right one signs in
    assert 'autocomplete="one-time-code"' in wrong["body"]
    assert "That code is not right" in wrong["body"]
    assert "console_challenge" in again.cookies
    done = again.post("/console/sign-in/challenge", {"answer": totp.fresh()})
    assert (done["statusCode"], done["headers"].get("Location")) == (303, "/console"), done["body"]
    assert "console_challenge" not in again.cookies
    assert again.get("/console")["statusCode"] == 200
    # Two wrong passwords from one address in a minute, and the wrong code: one entry each, in
    # the workspace's log, naming the account tried and never what was tried
    for _ in range(2):
        assert PersonBrowser(handlers).sign_in(person.email, "not-the-password")["statusCode"] == 401
    failures = [e for e in services.audit_trail().page(workspace, AuditQuery()).entries if e.action.endswith("_failed")]
    assert (
        sorted((e.action, e.target.id) for e in failures)
        == [
            ("session.mfa_failed", person.subject),
            ("session.sign_in_failed", person.subject),
        ]
        or failures[0].at.minute != failures[-1].at.minute
    )  # a minute turned between the two
    wrong_passwords = [e for e in failures if e.action == "session.sign_in_failed"]
    assert all(e.person is not None and e.person.email == person.email and e.client for e in wrong_passwords)
    assert "not-the-password" not in json.dumps([e.view() for e in failures])


def test_an_invitation_is_taken_once_by_signing_up_and_never_after_it_expires(handlers, pool, workspace, capsys):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    form = {"csrf": browser.csrf("/console/members"), "email": "new@example.com", "role": "viewer"}
    assert browser.post("/console/members/invite", form)["statusCode"] == 201
    link = invitation_link(capsys, "new@example.com")
    newcomer = PersonBrowser(handlers)
    assert newcomer.get(link)["statusCode"] == 200
    token = link.rsplit("/", 1)[1]
    # Sign-up only with the invited address; a weak password refused with the pool's reason
    other = {"token": token, "mode": "sign-up", "email": "else@example.com", "password": "Long-enough-1A"}
    assert newcomer.post("/console/invitations/accept", other)["statusCode"] == 422
    weak = {**other, "email": "new@example.com", "password": "short"}
    assert newcomer.post("/console/invitations/accept", weak)["statusCode"] == 422
    joined = newcomer.post("/console/invitations/accept", {**weak, "password": "Long-enough-1A"})
    assert (joined["statusCode"], joined["headers"].get("Location")) == (303, "/console"), joined["body"]
    assert "Signed in as <strong>new@example.com</strong> (viewer)" in newcomer.get("/console")["body"]
    # Used: the link answers 404 and makes nobody else a member
    assert PersonBrowser(handlers).get(link)["statusCode"] == 404
    reuse = PersonBrowser(handlers).post("/console/invitations/accept", {**joined_form(token), "mode": "sign-in"})
    assert reuse["statusCode"] == 404
    # Expired: the same
    now = datetime.now(UTC)
    expired = Invitation(
        "old", workspace, "late@example.com", "editor", "x", now - timedelta(days=8), now - timedelta(days=1)
    )
    services.invitations().add(hash_token("expired-token"), expired)
    assert PersonBrowser(handlers).get("/console/invitations/expired-token")["statusCode"] == 404
    assert [m.email for m in services.memberships().members_of(workspace)] == ["new@example.com", "owner@example.com"]


def joined_form(token: str) -> dict[str, str]:
    return {"token": token, "email": "owner@example.com", "password": "whatever-1A"}


def test_a_viewer_who_crafts_a_post_gets_403_and_nothing_changes(handlers, pool, workspace, aws):
    viewer, password = pool.member("viewer@example.com", workspace, "viewer")
    browser = signed_in(PersonBrowser(handlers), viewer.email, password)
    csrf = browser.csrf()
    links_before = aws.item_count(services.resources().links_table.value)
    keys_before = len(services.api_key_store().list_keys(workspace))
    for path, form in [
        ("/console/links", {"url": "https://example.com/crafted"}),
        ("/console/keys", {"name": "crafted", "scopes": "links:read"}),
        ("/console/members/invite", {"email": "friend@example.com", "role": "owner"}),
        (f"/console/members/{viewer.subject}/role", {"role": "owner"}),
        ("/console/members/invitations/0123456789ab/revoke", {}),
    ]:
        answer = browser.post(path, {"csrf": csrf, **form})
        assert answer["statusCode"] == 403, (path, answer["body"])
    for page in ("/console/links/new", "/console/keys", "/console/members"):
        assert browser.get(page)["statusCode"] == 403, page
    assert aws.item_count(services.resources().links_table.value) == links_before
    assert len(services.api_key_store().list_keys(workspace)) == keys_before
    assert services.memberships().role_in(workspace, viewer.subject) == "viewer"
    assert services.invitations().pending_for(workspace) == []


def test_a_member_removed_mid_session_is_out_at_the_next_request(handlers, pool, workspace):
    owner, owner_password = pool.member("owner@example.com", workspace, "owner")
    editor, editor_password = pool.member("editor@example.com", workspace, "editor")
    editing = signed_in(PersonBrowser(handlers), editor.email, editor_password)
    assert editing.get("/console")["statusCode"] == 200
    managing = signed_in(PersonBrowser(handlers), owner.email, owner_password)
    # Remove asks first, naming whom, and removes nobody until confirmed
    form = {"csrf": managing.csrf("/console/members")}
    asked = managing.post(f"/console/members/{editor.subject}/remove", form)
    assert (asked["statusCode"], 'name="confirmed" value="yes"' in asked["body"]) == (200, True)
    assert "Remove editor@example.com (editor)?" in asked["body"]
    assert services.memberships().role_in(workspace, editor.subject) == "editor"
    removed = managing.post(f"/console/members/{editor.subject}/remove", {**form, "confirmed": "yes"})
    assert removed["statusCode"] == 303
    # The removed editor is out at their next request, and told why
    landing = editing.get("/console")["headers"].get("Location")
    assert landing == "/console/sign-in?why=removed"
    told = http_event("GET", "/console/sign-in", route="/console/{proxy+}", query={"why": "removed"})
    assert "You were removed from that workspace" in handlers["ConsoleFunction"](told)["body"]
    # Signing in again finds no workspace of theirs
    assert PersonBrowser(handlers).sign_in(editor.email, editor_password)["statusCode"] == 403
    # The last owner cannot be removed, not even by themself
    last = managing.post(f"/console/members/{owner.subject}/remove", {"csrf": managing.csrf("/console/members")})
    assert last["statusCode"] == 409


def test_no_page_shows_another_workspaces_data_and_switching_needs_a_membership(handlers, pool, workspace, aws):
    other_key = aws.new_api_key("other-account")
    other = services.api_key_store().find_by_hash(hash_api_key(other_key)).owner  # type: ignore[union-attr]
    body = {"url": "https://example.com/other-secret", "title": "other-title-77"}
    headers = {"authorization": f"Bearer {other_key}"}
    created = handlers["CreateFunction"](http_event("POST", "/links", route="/links", body=body, headers=headers))
    assert created["statusCode"] == 201
    code = json.loads(created["body"])["code"]
    person, password = pool.member("both@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    for page in ("/console", f"/console/links/{code}", "/console/overview", "/console/keys", "/console/members"):
        shown = browser.get(page)["body"]
        assert "other-title-77" not in shown, page
        assert "other-account" not in shown, page
    switched = browser.post("/console/workspace", {"csrf": browser.csrf(), "workspace_id": other})
    assert switched["statusCode"] == 403
    # Made a member there too, the switch works and shows that workspace's links only
    join_on_first_sign_in(services.memberships(), person, other, "viewer")
    listed = browser.get("/console/workspaces")["body"]
    assert f'value="{other}"' in listed  # offered to switch to
    assert f"<code>{workspace}</code>" in listed
    switched = browser.post("/console/workspace", {"csrf": browser.csrf(), "workspace_id": other})
    assert switched["statusCode"] == 303
    assert "other-title-77" in browser.get("/console")["body"]
    assert browser.get("/console/keys")["statusCode"] == 403  # a viewer there


def test_sign_in_attempts_are_counted_per_account_across_addresses_and_per_address_block(handlers, pool, workspace):
    person, password = pool.member("target@example.com", workspace, "owner")
    limit = services.people_settings().sign_in_attempts_per_account
    for attempt in range(limit):
        answer = PersonBrowser(handlers, f"198.51.100.{attempt + 1}").sign_in(person.email, "wrong-Password-1")
        assert answer["statusCode"] == 401
    # The account's window is full: even its password, from a new address, waits
    locked = PersonBrowser(handlers, "198.51.100.200").sign_in(person.email, password)
    assert locked["statusCode"] == 429
    assert int(locked["headers"]["Retry-After"]) > 0
    # One IPv6 /64 is one client: other accounts from its addresses count together
    per_address = services.settings_of(RateLimitSettings).sign_in_attempts_per_window
    statuses = [
        PersonBrowser(handlers, f"2001:db8:1:2::{n + 1:x}").sign_in(f"guess{n}@example.com", "x-Pass-1")["statusCode"]
        for n in range(per_address + 1)
    ]
    assert statuses == [401] * per_address + [429]
    # Another /64 is another client
    assert PersonBrowser(handlers, "2001:db8:1:3::1").sign_in("fresh@example.com", "x-Pass-1")["statusCode"] == 401


def test_correct_sign_ins_never_lock_out_an_office_and_guesses_stay_bounded(handlers, pool, workspace):
    per_address = services.settings_of(RateLimitSettings).sign_in_attempts_per_window
    people = [pool.member(f"office{n}@example.com", workspace, "viewer") for n in range(per_address + 1)]
    # Given as many correct sign-ins from one NAT's address as the limit, and re-entries of a
    # password on Sign-in security
    office = "198.51.100.77"
    for person, password in people[:per_address]:
        signed_in(PersonBrowser(handlers, office), person.email, password)
    first, first_password = people[0]
    securing = signed_in(PersonBrowser(handlers, office), first.email, first_password)
    for _ in range(per_address):
        form = {"csrf": securing.csrf("/console/security"), "password": first_password}
        assert securing.post("/console/security/totp", form)["statusCode"] == 200
    # Then a colleague behind the same NAT signs in fine
    colleague, colleague_password = people[-1]
    signed_in(PersonBrowser(handlers, office), colleague.email, colleague_password)
    # And guesses from that address are still bounded: the limit's worth of failures, then 429
    guesses = [
        PersonBrowser(handlers, office).sign_in(f"guess{n}@example.com", "x-Pass-1")["statusCode"]
        for n in range(per_address + 1)
    ]
    assert guesses == [401] * per_address + [429]
    # A person's own success forgives their account's failures (not the address's)
    per_account = services.people_settings().sign_in_attempts_per_account
    for n in range(per_account - 1):
        assert (
            PersonBrowser(handlers, f"203.0.113.{n + 1}").sign_in(colleague.email, "wrong-Pass-1")["statusCode"] == 401
        )
    signed_in(PersonBrowser(handlers, "203.0.113.100"), colleague.email, colleague_password)
    statuses = [
        PersonBrowser(handlers, f"192.0.2.{n + 1}").sign_in(colleague.email, "wrong-Pass-1")["statusCode"]
        for n in range(per_account + 1)
    ]
    assert statuses == [401] * per_account + [429]


def test_an_invitation_is_accepted_only_by_the_invited_address(handlers, pool, workspace, capsys):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    form = {"csrf": browser.csrf("/console/members"), "email": "invited@example.com", "role": "admin"}
    assert browser.post("/console/members/invite", form)["statusCode"] == 201
    token = invitation_link(capsys, "invited@example.com").rsplit("/", 1)[1]
    # Another existing account's right credentials, in sign-in mode: refused, naming the address
    other, other_password = pool.person("other@example.com")
    taker = PersonBrowser(handlers, "198.51.100.44")
    answer = taker.post(
        "/console/invitations/accept",
        {"token": token, "mode": "sign-in", "email": other.email, "password": other_password},
    )
    assert answer["statusCode"] == 422
    assert "sign in with the invited address, invited@example.com" in answer["body"]
    assert "console_session" not in taker.cookies
    # Nothing joined, and the invitation is still open for the person it names
    assert services.memberships().role_in(workspace, other.subject) is None
    assert [each.email for each in services.invitations().pending_for(workspace)] == ["invited@example.com"]
    invited, invited_password = pool.person("invited@example.com")
    form = {"token": token, "mode": "sign-in", "email": invited.email, "password": invited_password}
    joined = PersonBrowser(handlers).post("/console/invitations/accept", form)
    assert (joined["statusCode"], joined["headers"].get("Location")) == (303, "/console"), joined["body"]
    assert services.memberships().role_in(workspace, invited.subject) == "admin"


def test_the_consoles_sign_out_ends_the_persons_access_tokens_on_the_api(handlers, pool, workspace):
    person, password = pool.member("api-user@example.com", workspace, "editor")
    colleague, colleague_password = pool.member("colleague@example.com", workspace, "viewer")

    def api(token: str, path: str) -> int:
        headers = {"authorization": f"Bearer {token}", "x-shortlink-workspace": workspace}
        function = "ManageFunction" if path == "/links" else "KeysFunction"
        return int(handlers[function](http_event("GET", path, route=path, headers=headers))["statusCode"])

    # Given the person's token and a colleague's, both working on the API
    token = pool.access_token(person.email, password)
    others = pool.access_token(colleague.email, colleague_password)
    assert (api(token, "/links"), api(token, "/people/me"), api(others, "/links")) == (200, 200, 200)
    # When the person signs out of the console
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    assert browser.post("/console/sign-out", {"csrf": browser.csrf()})["statusCode"] == 303
    # Then their token no longer works on the API, on any route; the colleague's does
    assert (api(token, "/links"), api(token, "/people/me"), api(others, "/links")) == (401, 401, 200)
    # And a sign-in after it (the next second: tokens carry whole seconds) gives a token that works
    time.sleep(1.05 - time.time() % 1)
    assert api(pool.access_token(person.email, password), "/links") == 200


def test_a_stack_without_a_user_pool_offers_keys_only(handlers, aws, monkeypatch):
    for name in ("PEOPLE_USER_POOL_ID", "PEOPLE_CLIENT_ID"):
        monkeypatch.delenv(name, raising=False)
    services.reset()
    browser = PersonBrowser(handlers)
    page = browser.get("/console/sign-in")["body"]
    assert 'id="api_key"' in page
    assert 'id="email"' not in page
    assert browser.sign_in("ann@example.com", "Some-password-1")["statusCode"] == 404
    # An access token is then no way in: the API answers it as an unknown key
    event = http_event("GET", "/links", route="/links", headers={"authorization": "Bearer eyJhbGciOiJSUzI1NiJ9.e30.x"})
    assert handlers["ManageFunction"](event)["statusCode"] == 401


def test_sign_out_ends_every_session_of_the_person_on_the_server(handlers, pool, workspace):
    person, password = pool.member("ann@example.com", workspace, "editor")
    first = signed_in(PersonBrowser(handlers), person.email, password)
    second = signed_in(PersonBrowser(handlers), person.email, password)
    kept = dict(first.cookies)
    assert first.post("/console/sign-out", {"csrf": first.csrf()})["headers"]["Location"] == "/console/sign-in"
    first.cookies = kept  # a copy of the cookie, kept
    assert first.get("/console")["headers"].get("Location") == "/console/sign-in?why=ended"
    assert second.get("/console")["headers"].get("Location") == "/console/sign-in?why=ended"  # another browser too
    assert signed_in(PersonBrowser(handlers), person.email, password).get("/console")["statusCode"] == 200


def test_a_role_changed_takes_effect_at_the_members_next_request(handlers, pool, workspace):
    owner, owner_password = pool.member("owner@example.com", workspace, "owner")
    admin, admin_password = pool.member("admin@example.com", workspace, "admin")
    editor, editor_password = pool.member("editor@example.com", workspace, "editor")
    editing = signed_in(PersonBrowser(handlers), editor.email, editor_password)
    assert editing.get("/console/links/new")["statusCode"] == 200
    managing = signed_in(PersonBrowser(handlers), owner.email, owner_password)
    csrf = managing.csrf("/console/members")
    assert (
        managing.post(f"/console/members/{editor.subject}/role", {"csrf": csrf, "role": "viewer"})["statusCode"] == 303
    )
    assert editing.get("/console/links/new")["statusCode"] == 403
    assert "(viewer)" in editing.get("/console")["body"]
    # An admin manages no owner: neither demotes nor removes one, and cannot make one
    administering = signed_in(PersonBrowser(handlers), admin.email, admin_password)
    csrf = administering.csrf("/console/members")
    for path, form in [
        (f"/console/members/{owner.subject}/role", {"role": "viewer"}),
        (f"/console/members/{owner.subject}/remove", {}),
        (f"/console/members/{editor.subject}/role", {"role": "owner"}),
    ]:
        assert administering.post(path, {"csrf": csrf, **form})["statusCode"] == 403, path
    assert services.memberships().role_in(workspace, owner.subject) == "owner"
    assert services.memberships().role_in(workspace, editor.subject) == "viewer"


def test_an_open_invitation_is_revoked_from_the_members_page_and_its_link_then_takes_no_one(
    handlers, pool, workspace, capsys
):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    admin, admin_password = pool.member("admin@example.com", workspace, "admin")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    csrf = browser.csrf("/console/members")
    for email, role in (("late@example.com", "editor"), ("boss@example.com", "owner")):
        invited = browser.post("/console/members/invite", {"csrf": csrf, "email": email, "role": role})
        assert invited["statusCode"] == 201
    link_email = "late@example.com"
    link = invitation_link(capsys, link_email)
    late, boss = sorted(services.invitations().pending_for(workspace), key=lambda each: each.email != link_email)
    page = browser.get("/console/members")["body"]
    assert f'aria-label="Revoke the invitation of {late.email}"' in page
    # An admin may not withdraw an owner's invitation (they could not have made it), nor one that is no open one
    by_admin = signed_in(PersonBrowser(handlers), admin.email, admin_password)
    admin_csrf = by_admin.csrf("/console/members")
    assert f"Revoke the invitation of {boss.email}" not in by_admin.get("/console/members")["body"]
    refused = by_admin.post(f"/console/members/invitations/{boss.invitation_id}/revoke", {"csrf": admin_csrf})
    assert refused["statusCode"] == 403, refused["body"]
    unknown = by_admin.post("/console/members/invitations/%3Cscript%3E/revoke", {"csrf": admin_csrf})
    assert unknown["statusCode"] == 404
    assert "<script>" not in unknown["body"]
    # Without the session's CSRF token, nothing happens
    assert browser.post(f"/console/members/invitations/{late.invitation_id}/revoke", {})["statusCode"] == 403
    asked = by_admin.post(f"/console/members/invitations/{late.invitation_id}/revoke", {"csrf": admin_csrf})
    assert f"Revoke the invitation of {late.email} (as {late.role})?" in asked["body"]
    confirmed = {"csrf": admin_csrf, "confirmed": "yes"}
    revoked = by_admin.post(f"/console/members/invitations/{late.invitation_id}/revoke", confirmed)
    assert (revoked["statusCode"], revoked["headers"]["Location"]) == (303, "/console/members")
    assert [each.email for each in services.invitations().pending_for(workspace)] == [boss.email]
    # The link is dead: its page and its sign-up answer 404, nobody joins
    newcomer = PersonBrowser(handlers)
    assert newcomer.get(link)["statusCode"] == 404
    token = link.rsplit("/", 1)[1]
    form = {"token": token, "mode": "sign-up", "email": late.email, "password": "Long-enough-1A"}
    assert newcomer.post("/console/invitations/accept", form)["statusCode"] == 404
    assert late.email not in {m.email for m in services.memberships().members_of(workspace)}
    again = by_admin.post(f"/console/members/invitations/{late.invitation_id}/revoke", confirmed)
    assert again["statusCode"] == 404
    # The audit log names who withdrew which invitation
    entries = services.audit_trail().page(workspace, AuditQuery()).entries
    revocations = [(e.actor.id, e.target.id) for e in entries if e.action == "member.invitation_revoked"]
    assert revocations == [(admin.subject, late.invitation_id)]


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "1 to 64"),
        ("   ", "1 to 64"),
        ("x" * 65, "1 to 64"),
        ("Acme\u202eevil", "punctuation"),
        ("a\x00b", "punctuation"),
    ],
)
def test_a_workspace_name_that_cannot_be_read_as_written_is_refused(handlers, pool, workspace, name, problem):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    answer = browser.post("/console/workspace/settings", {"csrf": browser.csrf(), "name": name})
    assert answer["statusCode"] == 422
    assert problem in answer["body"]
    assert services.workspace_names().names_of([workspace]) == {}


def test_owners_name_their_workspace_and_its_members_see_the_name_in_their_list(handlers, pool, workspace, aws):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    admin, admin_password = pool.member("admin@example.com", workspace, "admin")
    other = aws.new_api_key("another account")
    elsewhere = services.api_key_store().find_by_hash(hash_api_key(other)).owner  # type: ignore[union-attr]
    join_on_first_sign_in(services.memberships(), admin, elsewhere, "owner")
    browser = signed_in(PersonBrowser(handlers), owner.email, password)
    assert 'id="workspace-settings-page"' in browser.get("/console")["body"]
    saved = browser.post("/console/workspace/settings", {"csrf": browser.csrf(), "name": "  Acme <Marketing>\u0301 "})
    assert (saved["statusCode"], saved["headers"]["Location"]) == (303, "/console/workspace/settings")
    assert services.workspace_names().names_of([workspace, elsewhere]) == {workspace: "Acme <Marketing>\u0301"}
    assert 'value="Acme &lt;Marketing&gt;\u0301"' in browser.get("/console/workspace/settings")["body"]
    # An admin sees the name among their workspaces (the other one by its id), and may not rename
    by_admin = signed_in(PersonBrowser(handlers), admin.email, admin_password)
    switched = by_admin.post("/console/workspace", {"csrf": by_admin.csrf(), "workspace_id": workspace})
    assert switched["statusCode"] == 303
    listed = by_admin.get("/console/workspaces")["body"]
    assert '<span class="workspace-name">Acme &lt;Marketing&gt;\u0301</span>' in listed
    assert f"<code>{workspace}</code>" in listed
    assert f'aria-label="Switch to workspace {elsewhere}"' in listed  # the one without a name, by its id
    assert 'id="workspace-settings-page"' not in by_admin.get("/console")["body"]
    assert by_admin.get("/console/workspace/settings")["statusCode"] == 403
    refused = by_admin.post("/console/workspace/settings", {"csrf": by_admin.csrf(), "name": "Taken over"})
    assert refused["statusCode"] == 403
    assert services.workspace_names().names_of([workspace]) == {workspace: "Acme <Marketing>\u0301"}
    # The change is in the audit log: which setting, by whom, never its value
    entries = services.audit_trail().page(workspace, AuditQuery()).entries
    [change] = [e for e in entries if e.action == "setting.changed"]
    assert (change.actor.id, change.target.id, change.changed) == (owner.subject, "name", ("name",))
    assert "Acme" not in json.dumps(change.view())


def test_a_person_makes_a_workspace_in_the_console_owns_it_and_works_in_it(handlers, pool, workspace, aws):
    # Given a viewer of one workspace, signed in
    maker, password = pool.member("maker@example.com", workspace, "viewer")
    browser = signed_in(PersonBrowser(handlers), maker.email, password)
    assert 'id="new-workspace"' in browser.get("/console/workspaces")["body"]
    # When the name cannot be read as written, Then it is refused naming it and nothing is made
    refused = browser.post("/console/workspaces", {"csrf": browser.csrf(), "name": "Acme\u202eevil"})
    assert refused["statusCode"] == 422
    assert "name: letters, digits, spaces and punctuation only" in refused["body"]
    assert [each.workspace_id for each in services.memberships().of_person(maker.subject)] == [workspace]
    # and a post without the session's token changes nothing
    assert browser.post("/console/workspaces", {"csrf": "0" * 64, "name": "Forged"})["statusCode"] == 403
    # When they make one, Then they own it, the session works in it, and it is audited as theirs
    made = browser.post("/console/workspaces", {"csrf": browser.csrf(), "name": "Spring <campaign>"})
    assert (made["statusCode"], made["headers"]["Location"]) == (303, "/console")
    [new] = [each for each in services.memberships().of_person(maker.subject) if each.workspace_id != workspace]
    assert new.role == "owner"
    assert services.workspace_names().names_of([new.workspace_id]) == {new.workspace_id: "Spring <campaign>"}
    settings_page = browser.get("/console/workspace/settings")  # an owner's page: the session moved
    assert settings_page["statusCode"] == 200
    assert 'value="Spring &lt;campaign&gt;"' in settings_page["body"]
    [entry] = services.audit_trail().page(new.workspace_id, AuditQuery()).entries
    assert (entry.action, entry.actor.id, entry.target.id) == ("workspace.created", maker.subject, new.workspace_id)
    # An API key belongs to its one workspace: its session makes none
    by_key = PersonBrowser(handlers)
    assert by_key.post("/console/sign-in", {"api_key": aws.new_api_key("keyed")})["statusCode"] == 303
    assert by_key.post("/console/workspaces", {"csrf": by_key.csrf(), "name": "Keyed"})["statusCode"] == 400
