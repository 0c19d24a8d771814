"""Invitations the user pool emails, in a real headless Chromium against the local stack run as
deployed (SHORTLINK_INVITATIONS=cognito: the console creates the account through the pool, and
the embedded moto stands in for Cognito's email, asking the pool's own trigger for its words),
axe-core on every page: the owner invites a new address (emailed) and one that has an account
(the link shown once), sees when members joined and were last active (no Remove on their own
row), and revokes the second invitation through its confirm step; the new person reads the
workspace, the inviter, the role and the password rule before submitting, signs in from the email
with the temporary password, chooses their own and joins as the invitation said. Driven, and
skipped, as the console's browser test is."""

import re
import secrets
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_console_browser import NEEDS_A_BROWSER, accessible
from tests.e2e.test_password_page_browser import browser
from tests.e2e.test_people import owner_credentials

pytestmark = [
    *NEEDS_A_BROWSER,
]
__all__ = ["browser"]  # fixture used by name


@pytest.fixture(scope="module")
def invitations_stack(store: dict[str, str]) -> Iterator[RunningStack]:
    started = RunningStack.start(endpoints=store, SHORTLINK_INVITATIONS="cognito", SIGN_IN_ATTEMPTS_PER_WINDOW="1000")
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


def person_with_an_account(stack: RunningStack, email: str, password: str) -> None:
    """Someone who signed up to the stack's pool before (through another workspace's invitation)."""
    cognito: Any = boto3.client(
        "cognito-idp",
        endpoint_url=f"http://127.0.0.1:{stack.moto_port}",
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    [pool] = cognito.list_user_pools(MaxResults=10)["UserPools"]
    attributes = [{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}]
    created = {"UserPoolId": pool["Id"], "Username": email, "UserAttributes": attributes}
    cognito.admin_create_user(**created, MessageAction="SUPPRESS")
    cognito.admin_set_user_password(UserPoolId=pool["Id"], Username=email, Password=password, Permanent=True)


def emailed(stack: RunningStack, email: str) -> tuple[str, str]:
    """The invitation link and temporary password of the email the pool sent to `email`."""
    pattern = rf"Invitation email to {re.escape(email)} \(by the user pool\): .*?href=\"(http://[^\"]+)\".*?<strong>([^<]+)</strong><br>"
    found = re.findall(pattern, stack.output(), re.S)
    assert len(found) == 1, stack.output()
    link, password = found[0]
    return link.split(str(stack.port), 1)[1], password


def test_an_invitee_joins_from_the_pools_email_and_a_known_address_gets_the_link(invitations_stack, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    stack = invitations_stack

    def shown(element_id: str) -> Any:
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    def fill(element_id: str, text: str) -> None:
        field = browser.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def invite(email: str, role: str) -> Any:
        browser.find_element(By.ID, "members-page").click()
        shown("invite-form")
        fill("email", email)
        browser.find_element(By.ID, f"invite-role-{role}").click()
        browser.find_element(By.ID, "invite").click()
        return shown("invited")

    run = secrets.token_hex(3)
    newcomer, known, known_password = f"new-{run}@example.com", f"known-{run}@example.com", f"Known-{run}-1Aa"
    person_with_an_account(stack, known, known_password)

    # The owner invites a new address: the pool emails it, nothing to pass on
    owner_email, owner_password = owner_credentials(stack)
    browser.get(f"{stack.base_url}/console")
    shown("sign-in-person")
    fill("email", owner_email)
    fill("password", owner_password)
    browser.find_element(By.ID, "sign-in-person").click()
    shown("members-page")
    assert f"Invitation sent to {newcomer}" in invite(newcomer, "editor").text
    assert not browser.find_elements(By.ID, "invitation-link")
    accessible(browser, "members-emailed")
    # ... and an address that has an account: Cognito sends it nothing, the owner gets the link once
    assert "has an account already" in invite(known, "viewer").text
    assert "/console/invitations/" in browser.find_element(By.ID, "invitation-link").text
    assert "not sent" in browser.find_element(By.ID, "invited-heading").text
    accessible(browser, "members-link-shown")
    # The members' table: when each joined and was last active (the owner: this hour); no Remove on their own row
    headers = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#members th")]
    assert headers[2:4] == ["Joined", "Last active"], headers
    own = browser.find_element(By.XPATH, f"//tr[td[contains(., '{owner_email} (you)')]]")
    assert "UTC" in own.find_element(By.CSS_SELECTOR, "td.last-active").text
    assert not own.find_elements(By.CSS_SELECTOR, "button.remove")
    # Revoke asks first, on a page of its own (no script needed), then withdraws the invitation
    browser.find_element(By.CSS_SELECTOR, f"button.revoke[aria-label='Revoke the invitation of {known}']").click()
    assert known in shown("confirm-question").text
    accessible(browser, "revoke-confirm")
    browser.find_element(By.ID, "confirm").click()
    shown("invite-form")
    assert known not in browser.find_element(By.ID, "pending").text
    browser.find_element(By.ID, "sign-out").click()
    shown("sign-in-person")

    # The newcomer opens the email's link and signs in with its temporary password
    path, temporary = emailed(stack, newcomer)
    browser.get(f"{stack.base_url}{path}")
    assert "temporary password" in shown("temporary-password").text
    # Before anything is submitted: which workspace, who invites, as what, and the password rule
    summary = browser.find_element(By.ID, "invitation-summary").text
    assert owner_email in summary
    assert browser.find_element(By.ID, "invitation-role").text == "editor"
    assert browser.find_element(By.ID, "invitation-workspace").text
    assert "at least 12 characters" in browser.find_element(By.ID, "password-rule").text
    accessible(browser, "invitation-emailed")
    fill("sign-in-email", newcomer)
    fill("sign-in-password", temporary)
    browser.find_element(By.ID, "sign-in-and-join").click()
    # The pool asks a password of their own, then they are in, with the invitation's role
    shown("answer-challenge")
    accessible(browser, "new-password")
    fill("answer", f"Own-{run}-password-1A")
    browser.find_element(By.ID, "answer-challenge").click()
    WebDriverWait(browser, 30).until(lambda page: f"{newcomer}</strong> (editor)" in page.page_source)
    assert browser.execute_script("return document.cookie") == ""
