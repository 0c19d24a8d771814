"""A workspace's own short domain in a real Chromium against the local stack (axe-core on each
page): Settings → Domains adds it (a refused name answered on the page), shows the TXT record,
verifies it once the stack's DNS server holds the record, refuses to remove it while a live link
is on it and removes it after a confirmation; between, a link is created on it with the new-link
form and another moved to it with the links list's bulk form, each then served on that host only.
The DNS server is the session's (tests/e2e/conftest.py, tools/developers/txt_records.py)."""

import secrets

import pytest

from tests.e2e.browser_steps import fill, shown, submitted
from tests.e2e.test_console_browser import NEEDS_A_BROWSER, accessible
from tests.e2e.test_password_page_browser import browser

__all__ = ["browser"]  # a fixture, used by name


@NEEDS_A_BROWSER[1]
@pytest.mark.dynamodb_features("TransactWriteItems")  # a bulk move is one transaction: once, on moto as `make dev`
def test_an_admin_adds_verifies_uses_and_removes_a_domain_in_the_browser(stack, auth, browser, dns_zone):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    domain = f"links-{secrets.token_hex(4)}.acme.test"
    row = f'tr[data-domain="{domain}"]'
    console = f"{stack.base_url}/console"
    browser.get(console)
    fill(browser, "api_key", stack.api_key)
    browser.find_element(By.ID, "sign-in").click()
    shown(browser, "create-link")

    # Settings → Domains: a name that cannot be a domain is answered on the page, the field kept
    browser.find_element(By.ID, "domains-page").click()
    fill(browser, "domain", "127.1")
    browser.find_element(By.ID, "add-domain-submit").click()
    assert "an IP address (127.0.0.1) cannot be a short domain" in shown(browser, "domain-problem").text
    assert browser.find_element(By.ID, "domain").get_attribute("value") == "127.1"
    accessible(browser, "domains-refused")

    # Added in capitals with a final dot: kept as browsers read it, with the record to publish
    fill(browser, "domain", f"{domain.upper()}.")
    browser.find_element(By.ID, "add-domain-submit").click()
    added = shown(browser, "domains").find_element(By.CSS_SELECTOR, row)
    assert added.find_element(By.CSS_SELECTOR, ".state").text == "not verified"
    record = added.find_element(By.CSS_SELECTOR, ".record-name").text
    value = added.find_element(By.CSS_SELECTOR, ".record-value").text
    assert (record, value.startswith("shortlink-verification=")) == (f"_shortlink.{domain}", True)
    accessible(browser, "domains-added")

    # Verified only once the record is published
    browser.find_element(By.CSS_SELECTOR, f"{row} button.verify").click()
    assert f"no TXT record at {record} holds {value}" in shown(browser, "domain-problem").text
    dns_zone.records[record] = [value]
    submitted(browser, browser.find_element(By.CSS_SELECTOR, f"{row} button.verify"))
    assert shown(browser, "domains").find_element(By.CSS_SELECTOR, f"{row} .state").text.startswith("verified ")
    assert not browser.find_elements(By.CSS_SELECTOR, f"{row} button.verify")
    accessible(browser, "domains-verified")

    # The new-link form offers it; a link created there is served on that host only
    browser.get(f"{console}/links/new")
    fill(browser, "url", "https://example.com/on-own-domain")
    Select(browser.find_element(By.ID, "domain")).select_by_value(domain)
    browser.find_element(By.ID, "save").click()
    shown(browser, "created")
    [created] = listed_on(stack, auth, domain)
    assert stack.request("GET", f"/{created}", headers={"Host": domain}).headers["location"] == (
        "https://example.com/on-own-domain"
    )
    assert stack.request("GET", f"/{created}").status == 404

    # The links list's bulk form moves a ticked link there, and offers the domain to move to
    moved = stack.request("POST", "/links", {"url": "https://example.com/moved"}, auth).json()["code"]
    browser.get(console)  # newest first: it leads
    options = browser.find_elements(By.CSS_SELECTOR, "#bulk-domains option")
    assert domain in [option.get_attribute("value") for option in options]
    browser.find_element(By.CSS_SELECTOR, f'tr[data-code="{moved}"] input[name="selected"]').click()
    Select(browser.find_element(By.ID, "bulk-action")).select_by_value("move")
    fill(browser, "bulk-to-domain", domain)
    accessible(browser, "links-bulk-move")
    browser.find_element(By.ID, "bulk-submit").click()
    assert shown(browser, "changed").text == "1 link changed."
    assert sorted(listed_on(stack, auth, domain)) == sorted([created, moved])
    assert (
        stack.request("GET", f"/{moved}", headers={"Host": domain}).headers["location"] == "https://example.com/moved"
    )
    assert stack.request("GET", f"/{moved}").status == 404
    # The list filtered by the domain shows both
    browser.get(f"{console}?domain={domain}")
    assert {created, moved} <= {
        each.get_attribute("data-code") for each in browser.find_elements(By.CSS_SELECTOR, "tr[data-code]")
    }

    # Remove asks first, then is refused while the links live on it, naming them
    browser.get(f"{console}/workspace/domains")
    browser.find_element(By.CSS_SELECTOR, f"{row} button.remove").click()
    assert domain in shown(browser, "confirm-question").text
    accessible(browser, "domain-remove-confirm")
    shown(browser, "confirm").click()
    assert f"domain {domain}: 2 live links use it" in shown(browser, "domain-problem").text
    # Without them it goes, after the confirmation, and the page says the workspace has none left
    for code in (created, moved):
        deleted = stack.request("DELETE", f"/links/{code}?domain={domain}", headers=auth)
        assert deleted.status == 204, deleted.body
    browser.get(f"{console}/workspace/domains")
    browser.find_element(By.CSS_SELECTOR, f"{row} button.remove").click()
    shown(browser, "confirm").click()
    shown(browser, "add-domain")
    assert not browser.find_elements(By.CSS_SELECTOR, row)
    assert domain not in [each["domain"] for each in stack.request("GET", "/domains", headers=auth).json()["domains"]]


def listed_on(stack, auth: dict[str, str], domain: str) -> list[str]:
    """The codes of the live links the stack's key has on `domain`."""
    answer = stack.request("GET", f"/links?domain={domain}&limit=100", headers=auth)
    assert answer.status == 200, answer.body
    return [link["code"] for link in answer.json()["links"]]
