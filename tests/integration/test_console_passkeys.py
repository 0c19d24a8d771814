"""Passkeys in the console, through its function, against moto's Cognito taught WebAuthn by make
dev's emulation: a person adds one on Sign-in security (password, then the browser's answer
posted back), signs in with it into the same revocable session a password gives, and removes
it; each change is in the audit log. Bad input gets a 4xx page naming the problem."""

import html
import json
import re
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.audit.queries import AuditQuery
from tests.integration.passkeys import SoftwarePasskey
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console_people import PersonBrowser, signed_in, workspace  # noqa: F401
from tools.developers.devstack.passkeys import STATE, install

pytestmark = pytest.mark.one_account_per_module
AUTHENTICATOR_ORIGIN = "http://localhost:3000"  # the pool's relying party is localhost


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    install()
    return user_pool_in(template, monkeypatch)


def options_in(page: dict[str, Any], attribute: str) -> dict[str, Any]:
    found = re.search(rf'{attribute}="([^"]+)"', str(page["body"]))
    assert found, page["body"]
    options: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return options


def security_csrf(browser: PersonBrowser) -> str:
    return browser.csrf("/console/security")


def add_passkey(browser: PersonBrowser, password: str, device: SoftwarePasskey) -> dict[str, Any]:
    started = browser.post("/console/security/passkeys/start", {"csrf": security_csrf(browser), "password": password})
    assert started["statusCode"] == 200, started["body"]
    credential = device.create(options_in(started, "data-passkey-create"))
    return browser.post(
        "/console/security/passkeys/complete",
        {"csrf": security_csrf(browser), "password": password, "credential": json.dumps(credential)},
    )


def passkey_sign_in(handlers, email: str, device: SoftwarePasskey) -> tuple[PersonBrowser, dict[str, Any]]:
    browser = PersonBrowser(handlers)
    started = browser.post("/console/sign-in/passkey", {"email": email})
    assert started["statusCode"] == 200, started["body"]
    answer = device.get(options_in(started, "data-passkey-get"))
    return browser, browser.post("/console/sign-in/passkey/finish", {"credential": json.dumps(answer)})


def test_a_person_adds_a_passkey_signs_in_with_it_and_removes_it(handlers, pool, workspace):  # noqa: F811
    person, password = pool.member("pat@example.com", workspace, "editor")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    page = browser.get("/console/security")
    assert 'id="add-passkey"' in page["body"]
    assert '<script src="/console/static/passkeys.js" defer></script>' in page["body"]
    device = SoftwarePasskey(AUTHENTICATOR_ORIGIN)
    added = add_passkey(browser, password, device)
    assert added["statusCode"] == 200, added["body"]
    assert 'id="passkey-notice"' in added["body"]
    assert len(re.findall(r'name="credential_id" value="([\w-]+)"', added["body"])) == 1

    # A new browser: the sign-in page offers passkeys; the pool's handle waits in the cookie only
    other = PersonBrowser(handlers)
    assert 'id="sign-in-passkey"' in other.get("/console/sign-in")["body"]
    started = other.post("/console/sign-in/passkey", {"email": person.email})
    assert "console_challenge" in other.cookies
    assert "console_session" not in other.cookies
    assert "Session" not in started["body"]
    answer = device.get(options_in(started, "data-passkey-get"))
    done = other.post("/console/sign-in/passkey/finish", {"credential": json.dumps(answer)})
    assert (done["statusCode"], done["headers"].get("Location")) == (303, "/console"), done["body"]
    assert "console_challenge" not in other.cookies
    assert "eyJ" not in other.cookies["console_session"]
    assert person.email in other.get("/console")["body"]
    # The same revocable session: signing out ends it (and the person's others) on the server
    other.post("/console/sign-out", {"csrf": other.csrf()})
    assert other.get("/console")["statusCode"] == 303
    browser = signed_in(PersonBrowser(handlers), person.email, password)

    listed = browser.post("/console/security/passkeys", {"csrf": security_csrf(browser), "password": password})
    [credential_id] = re.findall(r'name="credential_id" value="([\w-]+)"', listed["body"])
    removed = browser.post(
        "/console/security/passkeys/remove",
        {"csrf": security_csrf(browser), "password": password, "credential_id": credential_id},
    )
    assert removed["statusCode"] == 200, removed["body"]
    assert 'id="no-passkeys"' in removed["body"]
    refused = PersonBrowser(handlers).post("/console/sign-in/passkey", {"email": person.email})
    assert refused["statusCode"] == 401
    assert "no passkey" in refused["body"]

    entries = services.audit_trail().page(workspace, AuditQuery(target_kind="person")).entries
    assert [(each.action, each.target.id, each.actor.id) for each in entries] == [
        ("person.passkey_removed", person.subject, person.subject),
        ("person.passkey_added", person.subject, person.subject),
    ]


def test_bad_passkey_answers_get_a_4xx_page_naming_the_problem(handlers, pool, workspace, monkeypatch):  # noqa: F811
    monkeypatch.setenv("PEOPLE_SIGN_IN_ATTEMPTS_PER_ACCOUNT", "50")  # each step asks the pool: one attempt
    monkeypatch.setenv("SIGN_IN_ATTEMPTS_PER_WINDOW", "50")
    services.reset()
    person, password = pool.member("quinn@example.com", workspace, "viewer")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    device = SoftwarePasskey(AUTHENTICATOR_ORIGIN)
    wrong = browser.post("/console/security/passkeys/start", {"csrf": security_csrf(browser), "password": "Wrong-1a"})
    assert wrong["statusCode"] == 401
    assert "password is not right" in wrong["body"]
    browser.post("/console/security/passkeys/start", {"csrf": security_csrf(browser), "password": password})
    for credential, problem in (
        ("{not json", "not JSON"),
        ("x" * 20000, "longer than"),
        (json.dumps({"id": "a", "rawId": "a", "type": "public-key", "response": {}}), "clientDataJSON"),
        ("", "sent none"),
    ):
        answer = browser.post(
            "/console/security/passkeys/complete",
            {"csrf": security_csrf(browser), "password": password, "credential": credential},
        )
        assert answer["statusCode"] == 400, credential[:40]
        assert problem in html.unescape(answer["body"])
    # A passkey made for another site: the pool refuses it, and nothing is added
    started = browser.post("/console/security/passkeys/start", {"csrf": security_csrf(browser), "password": password})
    foreign = device.create(options_in(started, "data-passkey-create"), "https://evil.example")
    answer = browser.post(
        "/console/security/passkeys/complete",
        {"csrf": security_csrf(browser), "password": password, "credential": json.dumps(foreign)},
    )
    assert answer["statusCode"] == 400
    assert "did not accept" in answer["body"]
    listed = browser.post("/console/security/passkeys", {"csrf": security_csrf(browser), "password": password})
    assert 'id="no-passkeys"' in listed["body"]
    for credential_id, status in (("not an id!", 400), ("QUJD", 404)):
        answer = browser.post(
            "/console/security/passkeys/remove",
            {"csrf": security_csrf(browser), "password": password, "credential_id": credential_id},
        )
        assert answer["statusCode"] == status, answer["body"]
    assert services.audit_trail().page(workspace, AuditQuery(target_kind="person")).entries == []


def test_a_passkey_sign_in_refuses_stale_forged_and_replayed_answers(handlers, pool, workspace):  # noqa: F811
    person, password = pool.member("rae@example.com", workspace, "viewer")
    device = SoftwarePasskey(AUTHENTICATOR_ORIGIN)
    assert (
        add_passkey(signed_in(PersonBrowser(handlers), person.email, password), password, device)["statusCode"] == 200
    )
    # No cookie (a stale page), or a forged one
    for cookies in ({}, {"console_challenge": "forged.value"}):
        browser = PersonBrowser(handlers)
        browser.cookies.update(cookies)
        answer = browser.post("/console/sign-in/passkey/finish", {"credential": "{}"})
        assert answer["statusCode"] == 401
        assert "took too long" in answer["body"]
    # A malformed answer
    browser = PersonBrowser(handlers)
    browser.post("/console/sign-in/passkey", {"email": person.email})
    answer = browser.post("/console/sign-in/passkey/finish", {"credential": '{"type": "public-key"}'})
    assert answer["statusCode"] == 400
    assert "not a public key credential" in answer["body"]
    # A replay: the same cookie and answer once more after signing in
    browser, done = passkey_sign_in(handlers, person.email, device)
    assert done["statusCode"] == 303
    replay = PersonBrowser(handlers)
    started = replay.post("/console/sign-in/passkey", {"email": person.email})
    cookie = replay.cookies["console_challenge"]
    answer = device.get(options_in(started, "data-passkey-get"))
    assert replay.post("/console/sign-in/passkey/finish", {"credential": json.dumps(answer)})["statusCode"] == 303
    replay.cookies = {"console_challenge": cookie}
    again = replay.post("/console/sign-in/passkey/finish", {"credential": json.dumps(answer)})
    assert again["statusCode"] == 401
    assert "console_session" not in replay.cookies
    # A password sign-in's challenge page does not take a passkey's cookie, nor the reverse
    assert replay.post("/console/sign-in/challenge", {"answer": "123456"})["statusCode"] == 401


def test_passkey_sign_in_starts_are_counted_as_sign_in_attempts(handlers, pool, workspace):  # noqa: F811
    person, _ = pool.member("sam@example.com", workspace, "viewer")
    limit = services.people_settings().sign_in_attempts_per_account
    statuses = [
        PersonBrowser(handlers, f"198.51.100.{n}").post("/console/sign-in/passkey", {"email": person.email})[
            "statusCode"
        ]
        for n in range(limit + 1)
    ]
    assert statuses == [401] * limit + [429]


def test_without_a_relying_party_the_console_says_passkeys_are_off(handlers, pool, workspace, monkeypatch):  # noqa: F811
    monkeypatch.setenv("PEOPLE_PASSKEY_RELYING_PARTY", "")
    services.reset()
    person, password = pool.member("tia@example.com", workspace, "viewer")
    assert 'id="sign-in-passkey"' not in PersonBrowser(handlers).get("/console/sign-in")["body"]
    assert PersonBrowser(handlers).post("/console/sign-in/passkey", {"email": person.email})["statusCode"] == 404
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    assert 'id="passkeys-off"' in browser.get("/console/security")["body"]
    answer = browser.post("/console/security/passkeys/start", {"csrf": security_csrf(browser), "password": password})
    assert answer["statusCode"] == 404


def test_a_pool_without_webauthn_is_a_409_page_not_a_server_error(handlers, pool, workspace):  # noqa: F811
    # The console told of a relying party its pool was never given (an operator's half-done change)
    STATE.configurations.pop(pool.local.user_pool_id)
    person, password = pool.member("uma@example.com", workspace, "viewer")
    started = PersonBrowser(handlers).post("/console/sign-in/passkey", {"email": person.email})
    assert started["statusCode"] == 409
    assert "offers no passkeys" in started["body"]
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    answer = browser.post("/console/security/passkeys/start", {"csrf": security_csrf(browser), "password": password})
    assert answer["statusCode"] == 409
