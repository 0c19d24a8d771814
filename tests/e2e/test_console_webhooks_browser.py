"""The console's link changes reach a webhook receiver, in a real headless Chromium against the
local stack (as `make dev` runs it): a link created, edited, deleted and restored through the
console's forms is delivered to an endpoint the API registered as `link.created`,
`link.updated`, `link.deleted` and `link.restored`, each signature checked by the
standardwebhooks verifier (the same link commands as the API's: docs/webhooks.md, Events)."""

import secrets
import time
from typing import Any

import pytest

from tests.e2e.browser_steps import fill, shown
from tests.e2e.running_stack import RunningStack
from tests.e2e.test_password_page_browser import CHROMEDRIVER, CHROMIUM, browser
from tests.webhook_receiver import Receiver, webhook_receiver

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="Debian's chromium and chromium-driver are not installed; `make e2e` installs them with apt-get "
        "when it runs as root, and could not here",
    ),
    # A custom slug is written in a transaction: one stack start (moto's) is enough.
    pytest.mark.dynamodb_features("TransactWriteItems"),
]
__all__ = ["browser"]  # a fixture used by name

LINK_EVENTS = ["link.created", "link.updated", "link.deleted", "link.restored"]


def deliveries_of(receiver: Receiver, secret: str, code: str, count: int, timeout: float = 30) -> list[dict[str, Any]]:
    """The verified deliveries about the link `code`, once there are `count` or the time is up
    (the stack's key is shared: other tests' links are left out)."""
    deadline = time.monotonic() + timeout
    while True:
        ours = [payload for payload in receiver.verified(secret) if payload["data"].get("code") == code]
        if len(ours) >= count or time.monotonic() > deadline:
            return ours
        time.sleep(0.25)


def test_links_changed_in_the_console_reach_the_webhook_receiver(stack: RunningStack, auth, browser):
    from selenium.webdriver.common.by import By

    console = f"{stack.base_url}/console"
    slug = f"hooked-{secrets.token_hex(3)}"
    first, second = "https://example.com/console-hook", "https://example.com/console-hook?edited=1"
    with webhook_receiver() as receiver:
        # Given an endpoint the API registered for the account's link events
        registered = stack.request("POST", "/webhooks", {"url": receiver.url, "events": LINK_EVENTS}, auth)
        assert registered.status == 201, registered.body
        endpoint, secret = registered.json()["id"], registered.json()["secret"]
        try:
            # When a person signs in to the console and creates, edits, deletes and restores a link
            browser.get(console)
            fill(browser, "api_key", stack.api_key)
            browser.find_element(By.ID, "sign-in").click()
            shown(browser, "create-link")
            browser.get(f"{console}/links/new")
            fill(browser, "url", first)
            fill(browser, "slug", slug)
            browser.find_element(By.ID, "save").click()
            shown(browser, "created")
            browser.find_element(By.ID, "edit").click()
            shown(browser, "link-form")
            fill(browser, "url", second)
            browser.find_element(By.ID, "save").click()
            assert shown(browser, "destination").text == second
            browser.find_element(By.ID, "delete").click()
            shown(browser, "confirm").click()
            shown(browser, "deleted")
            browser.find_element(By.CSS_SELECTOR, f"#deleted tr[data-code='{slug}'] button.restore").click()
            shown(browser, "edit")
            # Then the receiver gets each change, signed, with the link as the API shows it
            payloads = deliveries_of(receiver, secret, slug, len(LINK_EVENTS))
        finally:
            # The shared stack's key keeps no endpoint pointing at a closed receiver.
            assert stack.request("DELETE", f"/webhooks/{endpoint}", headers=auth).status == 204
    # Each its own SQS message: they may arrive in any order
    delivered = sorted((payload["type"], payload["data"]["url"]) for payload in payloads)
    assert delivered == sorted(
        [("link.created", first), ("link.updated", second), ("link.deleted", second), ("link.restored", second)]
    )
    deleted = next(payload for payload in payloads if payload["type"] == "link.deleted")
    assert deleted["data"]["deleted_at"] is not None
