"""Single sign-on end to end: the local stack with SSO on (`SSO=1`: the managed login's stand-in,
tools.developers.devstack.managed_login), on each DynamoDB of the `store` fixture. In Debian's Chromium a
person clicks "Sign in with Example Corp", signs in at the stand-in and lands in the console as
a viewer of the stack's workspace (axe-core on the sign-in page with its button); their second
sign-in keeps the role the owner gave them since on the Members page, and once the owner removes
them there, their next sign-in is refused until they accept a new invitation with the invitation
page's SSO button; forged callbacks over HTTP start no session. An owner sets the stand-in's local
OIDC provider up in Settings > Single sign-on, tests it with their own sign-in, turns it on, and a
person typing an address of its domain joins through it with its default role (axe-core on the
settings page and the page that leads on to the provider)."""

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.adapters.dynamodb.memberships import DynamoInvitations, DynamoMemberships
from shortlink.people.invitations import invite
from shortlink.people.roles import scopes_of
from tests.e2e.browser_steps import shown as shown_in
from tests.e2e.conftest import FIXED_KEY
from tests.e2e.running_stack import RunningStack, free_port
from tests.e2e.test_console_browser import AXE, accessible
from tests.e2e.test_password_page_browser import CHROMEDRIVER, CHROMIUM, browser
from tests.e2e.test_people import owner_credentials

__all__ = ["browser"]  # a fixture used by name
WORKSPACE = key_id_for(hash_api_key(FIXED_KEY))  # the stack key's own workspace, SSO=1's default
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed; `make e2e` installs them with apt-get "
    "when it runs as root, and could not here",
)
needs_axe = pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed: run `npm ci` (make e2e does)")


OWNER = "sso-owner@example.com"


@pytest.fixture(scope="module")
def sso_stack(store: dict[str, str]) -> Iterator[RunningStack]:
    # An owner of its own: a session's dynalite is shared, and the sign-in counts per account it stores.
    started = RunningStack.start(
        endpoints=store, SSO="1", SSO_PORT=str(free_port()), SHORTLINK_API_KEY=FIXED_KEY, SHORTLINK_OWNER_EMAIL=OWNER
    )
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


@pytest.fixture
def memberships(sso_stack: RunningStack, store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> DynamoMemberships:
    """The stack's memberships as stored, to check what the console's pages did."""
    endpoint = store.get("AWS_ENDPOINT_URL_DYNAMODB") or f"http://127.0.0.1:{sso_stack.moto_port}"
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "x"),
        ("AWS_SECRET_ACCESS_KEY", "x"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    return DynamoMemberships("ApiKeysTable")


def roles(memberships: DynamoMemberships) -> dict[str, str]:
    """The workspace's members but its owners (`make dev`'s, tools.developers.devstack.people: the session's
    dynalite may hold another stack's beside this one's)."""
    members = memberships.members_of(WORKSPACE)
    return {member.email: member.role for member in members if member.role != "owner"}


def signed_in_as_owner(browser: Any, stack: RunningStack) -> str:
    """The browser signed in with the password of the owner `make dev` printed: their email."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.delete_all_cookies()
    owner_email, owner_password = owner_credentials(stack)
    browser.get(f"{stack.base_url}/console/sign-in")
    shown_in(browser, "sign-in-person")
    browser.find_element(By.ID, "email").send_keys(owner_email)
    browser.find_element(By.ID, "password").send_keys(owner_password)
    browser.find_element(By.ID, "sign-in-person").click()
    try:
        WebDriverWait(browser, 60).until(lambda driver: urlsplit(driver.current_url).path == "/console")
    except TimeoutException:
        page = browser.find_element(By.TAG_NAME, "body").text
        raise AssertionError(f"the owner's sign-in did not reach the console:\n{page}") from None
    return str(owner_email)


@needs_chromium
@needs_axe
def test_a_person_signs_in_with_the_button_lands_as_a_viewer_and_keeps_the_role_an_owner_gives(
    sso_stack, browser, memberships
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def shown(element_id: str) -> Any:
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    def sign_in_with_sso(email: str) -> None:
        browser.get(f"{sso_stack.base_url}/console/sign-in")
        button = shown("sso-sign-in")
        assert button.text == "Sign in with Example Corp"
        button.click()
        submit = shown("idp-sign-in")  # the stand-in's form, at "the identity provider"
        browser.find_element(By.ID, "email").send_keys(email)
        submit.click()
        WebDriverWait(browser, 30).until(lambda driver: urlsplit(driver.current_url).path == "/console")

    def sign_in_as_owner() -> None:
        signed_in_as_owner(browser, sso_stack)

    browser.get(f"{sso_stack.base_url}/console/sign-in")
    shown("sso-sign-in")
    accessible(browser, "sso-sign-in")

    sign_in_with_sso("ada@example.com")
    assert "Signed in as ada@example.com (viewer)" in " ".join(browser.find_element(By.CLASS_NAME, "who").text.split())
    assert browser.find_elements(By.ID, "new-link") == []  # a viewer creates no link
    assert browser.execute_script("return document.cookie") == ""  # HttpOnly: no script sees a session
    assert not re.search(r"eyJ[\w-]+\.[\w-]+\.", browser.page_source)  # no JWT anywhere on the page
    assert roles(memberships) == {"ada@example.com": "viewer"}

    # The owner (make dev's) makes Ada an editor on the Members page...
    [ada] = [member for member in memberships.members_of(WORKSPACE) if member.email == "ada@example.com"]
    sign_in_as_owner()
    shown("members-page").click()
    Select(shown(f"role-{ada.subject}")).select_by_value("editor")
    browser.find_element(By.CSS_SELECTOR, f'[aria-label="Change the role of {ada.email}"]').click()
    WebDriverWait(browser, 30).until(lambda _: roles(memberships)["ada@example.com"] == "editor")
    # ...and Ada, signed out, signs in again with SSO: the role stays the owner's choice.
    browser.delete_all_cookies()
    sign_in_with_sso("ada@example.com")
    assert "(editor)" in browser.find_element(By.CLASS_NAME, "who").text
    assert roles(memberships) == {"ada@example.com": "editor"}

    # The owner removes Ada on the Members page: her next sign-in with SSO is refused, she stays out.
    sign_in_as_owner()
    shown("members-page").click()
    browser.find_element(By.CSS_SELECTOR, f'[aria-label="Remove {ada.email}"]').click()
    assert ada.email in shown("confirm-question").text  # Remove asks first, naming whom
    browser.find_element(By.ID, "confirm").click()
    WebDriverWait(browser, 30).until(lambda _: roles(memberships) == {})
    browser.delete_all_cookies()
    browser.get(f"{sso_stack.base_url}/console/sign-in")
    shown("sso-sign-in").click()
    submit = shown("idp-sign-in")
    browser.find_element(By.ID, "email").send_keys("ada@example.com")
    submit.click()
    WebDriverWait(browser, 30).until(lambda driver: urlsplit(driver.current_url).path == "/console/sso/callback")
    assert "You were removed from this workspace; ask an owner to invite you again." in browser.page_source
    assert "console_session" not in {cookie["name"] for cookie in browser.get_cookies()}
    assert roles(memberships) == {}
    # The owner invites her again; she accepts with the invitation page's SSO button, as an editor.
    invitations = DynamoInvitations("ApiKeysTable")
    owner = owner_credentials(sso_stack)[0]
    _, token = invite(invitations, scopes_of("owner"), owner, WORKSPACE, "ada@example.com", "editor", datetime.now(UTC))
    browser.get(f"{sso_stack.base_url}/console/invitations/{token}")
    accept_button = shown("sso-accept")
    assert accept_button.text == "Sign in with Example Corp and join"
    accessible(browser, "sso-accept")
    accept_button.click()
    submit = shown("idp-sign-in")
    browser.find_element(By.ID, "email").send_keys("ada@example.com")
    submit.click()
    WebDriverWait(browser, 30).until(lambda driver: urlsplit(driver.current_url).path == "/console")
    assert "(editor)" in browser.find_element(By.CLASS_NAME, "who").text
    assert roles(memberships) == {"ada@example.com": "editor"}


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"code": "made-up", "state": "made-up"}, "No sign-in was started in this browser"),
        ({"error": "access_denied", "error_description": "not assigned"}, "did not sign you in: access_denied"),
    ],
)
def test_a_forged_callback_over_http_is_refused_with_a_page_naming_it_and_no_session(
    sso_stack, memberships, query, problem
):
    before = roles(memberships)
    answer = sso_stack.request("GET", f"/console/sso/callback?{urlencode(query)}")
    assert answer.status == 400
    assert problem in answer.body.decode()
    assert "console_session=" not in str(answer.headers.get("set-cookie", ""))
    assert roles(memberships) == before


def test_a_callback_with_another_browsers_state_is_refused(sso_stack, memberships):
    before = roles(memberships)
    started = sso_stack.request("GET", "/console/sso")
    assert started.status == 302
    cookie = started.headers["set-cookie"].split(";")[0]
    query = {"code": "whatever", "state": "the-state-of-another-browser"}
    assert parse_qs(urlsplit(started.headers["location"]).query)["state"] != [query["state"]]
    answer = sso_stack.request("GET", f"/console/sso/callback?{urlencode(query)}", headers={"Cookie": cookie})
    assert answer.status == 400
    assert "its state differs" in answer.body.decode()
    assert roles(memberships) == before


@needs_chromium
@needs_axe
@pytest.mark.dynamodb_features("TransactWriteItems")  # a set-up and its email domains are written together
def test_an_owner_sets_oidc_up_in_the_console_tests_it_turns_it_on_and_a_person_joins_through_it(
    sso_stack, browser, memberships
):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def shown(element_id: str) -> Any:
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    def at_the_provider(email: str, then: str) -> None:
        try:
            submit = shown("idp-sign-in")  # the stand-in's form, at "the identity provider"
        except TimeoutException:
            text = browser.find_element(By.TAG_NAME, "body").text
            raise AssertionError(f"no identity provider's form at {browser.current_url}:\n{text}") from None
        browser.find_element(By.ID, "email").send_keys(email)
        submit.click()
        WebDriverWait(browser, 30).until(lambda driver: urlsplit(driver.current_url).path == then)

    # The owner opens Workspace settings > Single sign-on and saves the local OIDC provider
    owner_email = signed_in_as_owner(browser, sso_stack)
    browser.get(f"{sso_stack.base_url}/console/workspace/settings")
    shown("sso-page").click()
    shown("sso-settings")
    accessible(browser, "sso-setup")
    stand_in = re.search(r"SSO:\s+(http://\S+) \(the managed login's stand-in\)", sso_stack.output())
    assert stand_in, sso_stack.output()
    idp = f"{stand_in.group(1)}/idp"  # the stand-in's local identity provider (its discovery document)
    for field, value in {"issuer": idp, "client_id": "local", "client_secret": "local-secret"}.items():
        browser.find_element(By.ID, field).send_keys(value)
    browser.find_element(By.ID, "button_label").send_keys("Example Net")
    Select(browser.find_element(By.ID, "default_role")).select_by_value("editor")
    browser.find_element(By.ID, "sso-save").click()
    assert "Saved, not yet on" in shown("sso-notice").text
    assert browser.find_elements(By.ID, "sso-on") == []
    # It tests the sign-in through it as itself, and turns it on
    shown("sso-test").click()
    at_the_provider(owner_email, "/console/workspace/sso")
    assert "test sign-in worked" in shown("sso-notice").text
    shown("sso-on").click()
    assert shown("sso-notice").text == "Single sign-on is on."
    # A person signs in through the workspace's sign-in link the page gives (routing by email
    # domain needs the domain verified by DNS: tests/integration/test_console_sso_setup.py)
    link = shown("sso-link").text
    browser.delete_all_cookies()
    path = urlsplit(link)  # the page names the public https address; the local stack is plain http
    browser.get(f"{sso_stack.base_url}{path.path}?{path.query}")
    at_the_provider("bo@example.com", "/console")
    assert "Signed in as bo@example.com (editor)" in " ".join(browser.find_element(By.CLASS_NAME, "who").text.split())
    assert roles(memberships)["bo@example.com"] == "editor"
