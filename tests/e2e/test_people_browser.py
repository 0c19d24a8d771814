"""People in the console in a real headless Chromium against the local stack, axe-core on every
page they see: the owner `make dev` printed signs in and invites an editor and a viewer; the
editor signs up through the link, turns TOTP on and signs in again with a code; the viewer sees
links but no way to change them; the owner removes the editor, whose next page is the sign-in.
Then the owner forgets their password and sets a new one with the printed code, turns TOTP on
from its QR code, signs in after a wrong code, with a recovery code, and turns TOTP off.
Driven, and skipped, as the console's browser test is."""

import re
import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import segno

from tests.e2e.browser_steps import fill, shown
from tests.e2e.test_console_browser import NEEDS_A_BROWSER, accessible
from tests.e2e.test_password_page_browser import browser
from tests.e2e.test_people import KEY, invitation_path, owner_credentials, people_stack, reset_code
from tests.integration.people import Authenticator

pytestmark = [
    *NEEDS_A_BROWSER,
    # The account's link from before people has a slug, written in a transaction: one stack start (moto's).
    pytest.mark.dynamodb_features("TransactWriteItems"),
]
__all__ = ["browser", "people_stack"]  # fixtures used by name


def test_an_owner_an_editor_with_totp_and_a_viewer_in_the_browser(people_stack, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    stack = people_stack
    console = f"{stack.base_url}/console"

    def shown(element_id: str) -> Any:
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    def fill(element_id: str, text: str) -> None:
        field = browser.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def sign_out() -> None:
        browser.find_element(By.ID, "sign-out").click()
        shown("sign-in-person")

    slug = f"before-{secrets.token_hex(3)}"
    auth = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    assert stack.request("POST", "/links", {"url": "https://example.com/b", "slug": slug}, auth).status == 201

    # The owner signs in with email and password
    owner_email, owner_password = owner_credentials(stack)
    browser.get(console)
    shown("sign-in-person")
    accessible(browser, "people-sign-in")
    fill("email", owner_email)
    fill("password", "Wrong-password-1")
    browser.find_element(By.ID, "sign-in-person").click()
    assert "do not match" in shown("sign-in-error").text
    fill("email", owner_email)
    fill("password", owner_password)
    browser.find_element(By.ID, "sign-in-person").click()
    shown("members-page")
    assert slug in browser.page_source
    assert browser.execute_script("return document.cookie") == ""  # HttpOnly: no script sees it
    assert not re.search(r"eyJ[\w-]+\.[\w-]+\.", browser.page_source)  # no token of the pool in the page
    # ... names the workspace, which its list then shows
    browser.find_element(By.ID, "workspace-settings-page").click()
    fill("name", "")
    browser.find_element(By.ID, "save-settings").click()
    assert "1 to 64 characters" in shown("name-error").text
    accessible(browser, "workspace-settings-refused")
    fill("name", "Acme marketing")
    save = browser.find_element(By.ID, "save-settings")
    save.click()
    WebDriverWait(browser, 30).until(expected_conditions.staleness_of(save))  # the page again, saved
    shown("workspace-settings")
    accessible(browser, "workspace-settings")
    # ... and makes a SCIM token for the identity provider, shown this once
    browser.find_element(By.ID, "scim-page").click()
    shown("scim-tokens")
    accessible(browser, "scim-tokens")
    browser.find_element(By.ID, "make-scim-token").click()
    assert shown("new-token").text.startswith("scim_")
    accessible(browser, "scim-token-made")
    browser.find_element(By.ID, "workspace-settings-page").click()
    shown("workspace-settings")
    browser.find_element(By.ID, "workspaces-page").click()
    assert "Acme marketing" in shown("workspaces").text
    assert "(this one)" in browser.find_element(By.ID, "workspaces").text
    accessible(browser, "workspaces")
    # makes a workspace of their own there (the console moves to it), and switches back
    fill("name", f"Spring team {secrets.token_hex(2)}")
    browser.find_element(By.ID, "create-workspace").click()
    shown("no-links")  # the new workspace's list
    browser.get(f"{console}/workspaces")
    assert "Spring team" in shown("workspaces").text
    browser.find_element(By.CSS_SELECTOR, "button[aria-label='Switch to workspace Acme marketing']").click()
    shown("links")

    # ... and invites an editor and a viewer
    run = secrets.token_hex(3)
    editor_email, viewer_email, password = f"ed-{run}@example.com", f"vi-{run}@example.com", f"Pass-{run}-1Aa"
    for email, role in ((editor_email, "editor"), (viewer_email, "viewer")):
        browser.find_element(By.ID, "members-page").click()
        shown("invite-form")
        fill("email", email)
        browser.find_element(By.ID, f"invite-role-{role}").click()
        browser.find_element(By.ID, "invite").click()
        assert email in shown("invited").text
    accessible(browser, "members")
    sign_out()

    # The editor signs up through the link, turns TOTP on, and signs in again with a code
    browser.get(f"{stack.base_url}{invitation_path(stack, editor_email)}")
    shown("sign-up")
    accessible(browser, "invitation")
    fill("sign-up-password", password)
    browser.find_element(By.ID, "sign-up").click()
    shown("security-page").click()
    fill("password", password)
    accessible(browser, "security")
    browser.find_element(By.ID, "start-totp").click()
    app = Authenticator(shown("totp-secret").text)
    assert browser.find_element(By.ID, "totp-uri").text.startswith("otpauth://totp/Shortlink:")
    accessible(browser, "security-secret")
    fill("confirm-password", password)
    fill("code", app.fresh())
    browser.find_element(By.ID, "confirm-totp").click()
    shown("totp-on")
    sign_out()
    fill("email", editor_email)
    fill("password", password)
    browser.find_element(By.ID, "sign-in-person").click()
    shown("answer")
    accessible(browser, "sign-in-code")
    fill("answer", app.fresh())
    browser.find_element(By.ID, "answer-challenge").click()
    shown("new-link")
    assert browser.find_elements(By.ID, "members-page") == []  # an editor manages no one
    editor_cookie = browser.get_cookie("console_session")
    assert editor_cookie is not None
    assert editor_cookie["httpOnly"]

    # The viewer signs up: links to read, nothing to change them with
    browser.delete_all_cookies()
    browser.get(f"{stack.base_url}{invitation_path(stack, viewer_email)}")
    fill("sign-up-password", password)
    browser.find_element(By.ID, "sign-up").click()
    shown("sign-out")
    assert slug in browser.page_source
    assert browser.find_elements(By.ID, "new-link") == []
    accessible(browser, "viewer-links")
    browser.get(f"{console}/members")
    assert "lacks the members:read scope" in shown("error").text
    accessible(browser, "viewer-refused")

    # The owner removes the editor; the editor's next page is the sign-in
    browser.delete_all_cookies()
    browser.get(f"{console}/sign-in")
    fill("email", owner_email)
    fill("password", owner_password)
    browser.find_element(By.ID, "sign-in-person").click()
    shown("members-page").click()
    browser.find_element(By.CSS_SELECTOR, f'button[aria-label="Remove {editor_email}"]').click()
    assert editor_email in shown("confirm-question").text  # Remove asks first, naming whom
    browser.find_element(By.ID, "confirm").click()
    shown("invite-form")
    assert editor_email not in browser.find_element(By.ID, "members").text

    # The audit log shows each step, in order, with who took it
    browser.find_element(By.ID, "audit-page").click()
    shown("audit-filter")
    rows = browser.find_elements(By.CSS_SELECTOR, "#audit tbody tr")
    steps = [
        (row.get_attribute("data-action"), row.find_element(By.CLASS_NAME, "actor").text.split(" (")[0])
        for row in reversed(rows)
        if (row.get_attribute("data-action") or "").startswith("member.")
    ]
    assert steps == [
        ("member.invited", owner_email),
        ("member.invited", owner_email),
        ("member.joined", editor_email),
        ("member.joined", viewer_email),
        ("member.removed", owner_email),
    ]
    accessible(browser, "audit-people")
    browser.delete_all_cookies()
    browser.get(console)  # a fresh visit sets the cookie's domain first
    browser.add_cookie({k: editor_cookie[k] for k in ("name", "value", "path", "secure", "httpOnly")})
    browser.get(console)
    shown("sign-in-person")
    # The removed editor lands on the sign-in page, told why
    assert browser.current_url == f"{console}/sign-in?why=removed"
    assert "You were removed from that workspace" in shown("sign-in-reason").text
    accessible(browser, "sign-in-removed")


def test_a_forgotten_password_then_totp_by_qr_code_recovery_codes_and_totp_off_in_the_browser(people_stack, browser):
    from selenium.webdriver.common.by import By

    stack = people_stack
    console = f"{stack.base_url}/console"
    email, old_password = owner_credentials(stack)
    password = f"New-{secrets.token_hex(4)}-1Aa"

    def click(element_id: str) -> None:
        browser.find_element(By.ID, element_id).click()

    def sign_in(with_password: str) -> None:
        browser.get(f"{console}/sign-in")
        fill(browser, "email", email)
        fill(browser, "password", with_password)
        click("sign-in-person")

    # Forgot password: a code by (make dev's printed) email, the pool's rule shown, a new password
    browser.delete_all_cookies()
    browser.get(f"{console}/sign-in")
    shown(browser, "forgot-password").click()
    fill(browser, "email", email)
    accessible(browser, "password-forgot")
    click("send-reset-code")
    shown(browser, "reset-sent")
    assert "At least 12 characters" in browser.find_element(By.ID, "password-rule").text
    accessible(browser, "password-reset")
    fill(browser, "code", reset_code(stack, email))
    fill(browser, "new-password", password)
    click("reset-password")
    shown(browser, "sign-in-notice")
    sign_in(old_password)
    assert "do not match" in shown(browser, "sign-in-error").text
    sign_in(password)

    # TOTP set up from its QR code (the page's image is the otpauth URI's), with ten recovery codes
    shown(browser, "security-page").click()
    fill(browser, "password", password)
    click("start-totp")
    uri = shown(browser, "totp-uri").text
    drawn = segno.make(uri, error="m").svg_data_uri(scale=4)
    assert browser.find_element(By.ID, "totp-qr").get_attribute("src") == drawn
    app = Authenticator(parse_qs(urlsplit(uri).query)["secret"][0])
    fill(browser, "confirm-password", password)
    fill(browser, "code", app.fresh())
    click("confirm-totp")
    codes = [each.text for each in shown(browser, "recovery-codes").find_elements(By.TAG_NAME, "code")]
    assert len(set(codes)) == 10
    accessible(browser, "security-recovery-codes")

    # A wrong code asks for the code again; the right one signs in
    click("sign-out")
    sign_in(password)
    fill(browser, "answer", "123456" if app.fresh() != "123456" else "654321")
    click("answer-challenge")
    assert "not right" in shown(browser, "sign-in-error").text
    fill(browser, "answer", app.fresh())
    click("answer-challenge")
    shown(browser, "sign-out").click()

    # A recovery code signs in in place of the code, once
    sign_in(password)
    fill(browser, "recovery-code", codes[0])
    click("use-recovery-code")
    shown(browser, "security-page").click()
    assert shown(browser, "codes-left").text == "9"
    accessible(browser, "security-totp-on")

    # TOTP off: the password and a current code again; then a password alone signs in
    fill(browser, "off-password", password)
    fill(browser, "off-code", app.fresh())
    click("totp-off")
    shown(browser, "security-notice")
    click("sign-out")
    sign_in(password)
    shown(browser, "sign-out")
