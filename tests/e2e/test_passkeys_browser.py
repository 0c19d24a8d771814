"""Passkeys in a real headless Chromium against the local stack, with Chromium's virtual
authenticator (CTAP2, internal, resident keys, user verified) and axe-core on each new page: a
person adds a passkey on Sign-in security, signs out, signs in with it, and removes it; the
audit log shows both changes. The pool's WebAuthn is make dev's emulation (py_webauthn
verifying the browser's real answers).

WebAuthn needs a secure context and a domain as relying party: the browser goes to
http://localhost:<port> (localhost is both; 127.0.0.1 is no relying party). On moto only: the
passkeys live in the user pool (the embedded moto's either way), and what DynamoDB stores of
them (sessions, audit entries, attempt counts) is what the password sign-in tests store on
dynalite already."""

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_console_browser import NEEDS_A_BROWSER, accessible
from tests.e2e.test_password_page_browser import browser
from tests.e2e.test_people import owner_credentials

pytestmark = [
    *NEEDS_A_BROWSER,
]
__all__ = ["browser"]  # a fixture used by name


@pytest.fixture(scope="module")
def passkeys_stack() -> Iterator[RunningStack]:
    # An owner of its own: the sign-in limit per account is the store's, shared with other stacks.
    owner = f"passkey-owner-{secrets.token_hex(3)}@example.com"
    started = RunningStack.start(SHORTLINK_OWNER_EMAIL=owner, SIGN_IN_ATTEMPTS_PER_WINDOW="100")
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


def test_a_person_adds_a_passkey_signs_in_with_it_and_removes_it(passkeys_stack, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    def shown(element_id: str) -> Any:
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    def fill(element_id: str, text: str) -> None:
        field = browser.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    browser.add_virtual_authenticator(
        VirtualAuthenticatorOptions(
            protocol=Protocol.CTAP2,
            transport=Transport.INTERNAL,
            has_resident_key=True,
            has_user_verification=True,
            is_user_verified=True,
        )
    )
    console = f"http://localhost:{passkeys_stack.port}/console"
    assert f"Passkeys:  at {console} (their relying party, localhost, is that host)" in passkeys_stack.output()
    email, password = owner_credentials(passkeys_stack)

    # Signed in with the password, the person adds a passkey
    browser.get(f"{console}/sign-in")
    fill("email", email)
    fill("password", password)
    browser.find_element(By.ID, "sign-in-person").click()
    shown("security-page").click()
    shown("add-passkey")
    accessible(browser, "security-passkeys")
    fill("passkeys-password", password)
    browser.find_element(By.ID, "add-passkey").click()
    shown("create-passkey")
    accessible(browser, "security-passkey-create")
    fill("passkey-password", password)
    browser.find_element(By.ID, "create-passkey").click()
    assert "Passkey added" in shown("passkey-notice").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#passkeys tbody tr")) == 1
    assert len(browser.get_credentials()) == 1
    accessible(browser, "security-passkey-added")

    # Signed out, they sign in with it: the same HttpOnly session as a password gives
    browser.find_element(By.ID, "sign-out").click()
    shown("sign-in-passkey")
    accessible(browser, "sign-in-with-passkeys")
    fill("passkey-email", email)
    browser.find_element(By.ID, "sign-in-passkey").click()
    shown("use-passkey")
    accessible(browser, "sign-in-passkey")
    assert not re.search(r"eyJ[\w-]+\.[\w-]+\.", browser.page_source)  # no token of the pool in the page
    browser.find_element(By.ID, "use-passkey").click()
    shown("security-page")
    assert email in browser.find_element(By.CSS_SELECTOR, ".who").text
    assert browser.execute_script("return document.cookie") == ""  # HttpOnly: no script sees it
    session = browser.get_cookie("console_session")
    assert session is not None
    assert session["httpOnly"]
    assert browser.get_cookie("console_challenge") is None

    # ... and removes it (their password once more: the console keeps no token to act with)
    browser.find_element(By.ID, "security-page").click()
    fill("passkeys-password", password)
    shown("show-passkeys").click()
    shown("remove-passkey-1")
    fill("remove-password-1", password)
    browser.find_element(By.ID, "remove-passkey-1").click()
    assert "Passkey removed" in shown("passkey-notice").text
    shown("no-passkeys")

    # The audit log has both, by this person
    browser.get(f"{console}/audit")
    shown("audit-filter")
    actions = re.findall(r'data-action="(person\.passkey_\w+)"', browser.page_source)
    assert actions == ["person.passkey_removed", "person.passkey_added"]
