"""Two-step sign-in in the console, through its function, against moto's Cognito (TOTP codes
checked) with make dev's passkey emulation: TOTP set up from a QR code, ten recovery codes shown
once, a wrong code asking for the code again (recorded in the audit log), a recovery code
signing in once, new codes ending the old ones, TOTP turned off only after signing in again,
and a passkey added while TOTP is on."""

import json
import re
from typing import Any

import pytest
import segno

from shortlink import wiring as services
from shortlink.audit.queries import AuditQuery
from tests.integration.passkeys import SoftwarePasskey
from tests.integration.people import Authenticator, Pool, user_pool_in
from tests.integration.test_console_passkeys import AUTHENTICATOR_ORIGIN, options_in, passkey_sign_in
from tests.integration.test_console_people import PersonBrowser, signed_in, workspace  # noqa: F401
from tools.developers.devstack.passkeys import install

pytestmark = pytest.mark.one_account_per_module


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    monkeypatch.setenv("MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP", "true")
    install()
    return user_pool_in(template, monkeypatch)


def actions(workspace_id: str, action: str) -> list[str]:
    return [e.actor.id for e in services.audit_trail().page(workspace_id, AuditQuery()).entries if e.action == action]


def turn_on_totp(browser: PersonBrowser, password: str) -> tuple[Authenticator, list[str]]:
    started = browser.post("/console/security/totp", {"csrf": browser.csrf("/console/security"), "password": password})
    secret = re.search(r'id="totp-secret">([A-Za-z2-7]+)<', started["body"])
    uri = re.search(r'id="totp-uri">([^<]+)<', started["body"])
    assert secret, started["body"]
    assert uri
    # The QR code is the otpauth URI's, as an image the page's CSP allows (a data: URI)
    qr = re.search(r'<img id="totp-qr" src="([^"]+)"', started["body"])
    assert qr
    assert qr.group(1) == segno.make(uri.group(1).replace("&amp;", "&"), error="m").svg_data_uri(scale=4)
    app = Authenticator(secret.group(1))
    form = {"csrf": browser.csrf("/console/security"), "password": password, "code": app.fresh()}
    confirmed = browser.post("/console/security/totp/confirm", form)
    assert 'id="totp-on"' in confirmed["body"], confirmed["body"]
    codes = re.findall(r"<li><code>([0-9a-z]{5}-[0-9a-z]{5})</code></li>", confirmed["body"])
    assert len(set(codes)) == 10
    return app, codes


def challenged(handlers: dict[str, Any], email: str, password: str) -> PersonBrowser:
    browser = PersonBrowser(handlers)
    page = browser.sign_in(email, password)
    assert 'id="recovery-code"' in page["body"], page["body"]
    return browser


def test_totp_with_recovery_codes_each_used_once_and_turned_off_after_signing_in_again(handlers, pool, workspace):  # noqa: F811
    person, password = pool.member("ana@example.com", workspace, "editor")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    app, codes = turn_on_totp(browser, password)
    security = browser.get("/console/security")["body"]
    assert 'id="codes-left">10<' in security
    assert 'id="totp-off"' in security
    # A wrong code asks for the code again (the sign-in kept), and the failure is recorded
    again = challenged(handlers, person.email, password)
    wrong = again.post("/console/sign-in/challenge", {"answer": "123456" if app.fresh() != "123456" else "654321"})
    assert wrong["statusCode"] == 401
    assert 'autocomplete="one-time-code"' in wrong["body"]
    assert actions(workspace, "session.mfa_failed") == [person.subject]
    # A recovery code signs in in place of the code, once (any case, without its dash)
    done = again.post("/console/sign-in/challenge", {"recovery_code": codes[0].upper().replace("-", "")})
    assert (done["statusCode"], done["headers"].get("Location")) == (303, "/console"), done["body"]
    assert actions(workspace, "person.recovery_code_used") == [person.subject]
    reused = challenged(handlers, person.email, password)
    refused = reused.post("/console/sign-in/challenge", {"recovery_code": codes[0]})
    assert refused["statusCode"] == 401
    assert "console_session" not in reused.cookies
    assert 'id="codes-left">9<' in browser.get("/console/security")["body"]
    # New codes need the password and a code again; the old ones stop working
    form = {"csrf": browser.csrf("/console/security"), "password": password, "code": "000000"}
    assert browser.post("/console/security/recovery-codes", form)["statusCode"] == 401
    renewed = browser.post("/console/security/recovery-codes", {**form, "code": app.fresh()})
    fresh_codes = re.findall(r"<li><code>([0-9a-z]{5}-[0-9a-z]{5})</code></li>", renewed["body"])
    assert len(fresh_codes) == 10
    assert not set(fresh_codes) & set(codes)
    old = challenged(handlers, person.email, password).post("/console/sign-in/challenge", {"recovery_code": codes[1]})
    assert old["statusCode"] == 401
    # Turning TOTP off: a wrong password, or a wrong code, leaves it on
    off = {"csrf": browser.csrf("/console/security"), "password": "Not-the-password-1", "code": app.fresh()}
    assert browser.post("/console/security/totp/off", off)["statusCode"] == 401
    wrong_code = {**off, "password": password, "code": "nope"}
    assert browser.post("/console/security/totp/off", wrong_code)["statusCode"] == 401
    challenged(handlers, person.email, password)
    # A recovery code re-authenticates too; then a password alone signs in, and the codes are gone
    turned = browser.post("/console/security/totp/off", {**off, "password": password, "code": fresh_codes[0]})
    assert 'id="security-notice"' in turned["body"], turned["body"]
    signed_in(PersonBrowser(handlers), person.email, password)
    assert services.recovery_codes().remaining(person.subject) == 0
    assert actions(workspace, "person.totp_disabled") == [person.subject]
    assert actions(workspace, "person.recovery_codes_issued") == [person.subject, person.subject]


def test_a_passkey_is_added_while_totp_is_on_and_signs_in(handlers, pool, workspace):  # noqa: F811
    person, password = pool.member("bo@example.com", workspace, "editor")
    browser = signed_in(PersonBrowser(handlers), person.email, password)
    app, _ = turn_on_totp(browser, password)
    # The password alone no longer acts for the person: the app's code goes with it
    form = {"csrf": browser.csrf("/console/security"), "password": password}
    assert browser.post("/console/security/passkeys/start", form)["statusCode"] == 401
    started = browser.post("/console/security/passkeys/start", {**form, "code": app.fresh()})
    assert started["statusCode"] == 200, started["body"]
    device = SoftwarePasskey(AUTHENTICATOR_ORIGIN)
    credential = device.create(options_in(started, "data-passkey-create"))
    added = browser.post(
        "/console/security/passkeys/complete", {**form, "code": app.fresh(), "credential": json.dumps(credential)}
    )
    assert 'id="passkey-notice"' in added["body"], added["body"]
    # The passkey signs in (the pool asks no TOTP code after it)
    passkey_browser, finished = passkey_sign_in(handlers, person.email, device)
    assert (finished["statusCode"], finished["headers"].get("Location")) == (303, "/console"), finished["body"]
    assert passkey_browser.get("/console")["statusCode"] == 200
    # A passkey sign-in of the last minutes re-authenticates: TOTP off without the password
    assert browser.post("/console/security/totp/off", {"csrf": browser.csrf("/console/security")})["statusCode"] == 422
    assert 'id="passkey-recently"' in passkey_browser.get("/console/security")["body"]
    turned = passkey_browser.post("/console/security/totp/off", {"csrf": passkey_browser.csrf("/console/security")})
    assert 'id="security-notice"' in turned["body"], turned["body"]
    signed_in(PersonBrowser(handlers), person.email, password)
