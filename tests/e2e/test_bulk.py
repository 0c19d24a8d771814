"""Bulk link work over real HTTP through the local stack: POST /links/bulk (create many, each on
its own) and POST /links/bulk/changes (one change to many, all or none), through the API and the
console's links list in a real Chromium (axe-core on its pages)."""

import secrets

import pytest

from tests.e2e.browser_steps import fill, shown
from tests.e2e.test_console_browser import NEEDS_A_BROWSER, accessible
from tests.e2e.test_password_page_browser import browser

__all__ = ["browser"]  # a fixture, used by name

CHANGES = "/links/bulk/changes"


def test_a_bulk_create_reports_each_link(stack, auth):
    links = [{"url": "https://example.com/bulk/1"}, {"url": "mailto:x@y.z"}, {"url": "https://example.com/bulk/3"}]
    answer = stack.request("POST", "/links/bulk", {"links": links}, auth)
    assert answer.status == 200, answer.body
    body = answer.json()
    assert [result["status"] for result in body["results"]] == [201, 422, 201]
    for result in (body["results"][0], body["results"][2]):
        assert stack.request("GET", f"/{result['link']['code']}").status == 302


def created_tagged(stack, auth, tag: str, count: int, **fields) -> list[str]:
    links = [{"url": f"https://example.com/changes/{n}", "tags": [tag], **fields} for n in range(count)]
    answer = stack.request("POST", "/links/bulk", {"links": links}, auth)
    assert answer.status == 200, answer.body
    return [result["link"]["code"] for result in answer.json()["results"]]


@pytest.mark.dynamodb_features("TransactWriteItems")  # all or none: one transaction
def test_bulk_changes_by_filter_and_by_code(stack, auth):
    tag = f"bulk-{secrets.token_hex(4)}"
    codes = created_tagged(stack, auth, tag, 2)
    # A retag by filter, then a delete by code: the redirect answers 410 for each
    retag = {"filter": {"tag": tag}, "action": "retag", "add_tags": ["moved"]}
    answer = stack.request("POST", CHANGES, retag, auth)
    assert (answer.status, answer.json()["changed"]) == (200, 2), answer.body
    assert {tuple(link["tags"]) for link in answer.json()["links"]} == {(tag, "moved")}
    delete = {"links": [{"code": code} for code in codes], "action": "delete"}
    assert stack.request("POST", CHANGES, delete, {**auth, "Idempotency-Key": f"{tag}-delete"}).status == 200
    assert [stack.request("GET", f"/{code}").status for code in codes] == [410] * 2  # not followed before

    def deleted() -> list[bool]:  # read through the API: the redirect keeps the 410 for its cache's TTL
        links = [stack.request("GET", f"/links/{code}", headers=auth).json() for code in codes]
        return [link["deleted_at"] is not None for link in links]

    # A restore of one unknown code with the others: refused, naming it; nothing restored
    refused = stack.request(
        "POST", CHANGES, {"links": [*delete["links"], {"code": "nope-nope"}], "action": "restore"}, auth
    )
    assert (refused.status, [item["code"] for item in refused.json()["refused"]]) == (422, ["nope-nope"])
    assert deleted() == [True] * 2
    # A restore by filter brings them all back
    assert stack.request("POST", CHANGES, {"filter": {"tag": tag}, "action": "restore"}, auth).status == 200
    assert deleted() == [False] * 2


def test_a_refused_bulk_change_reads_and_names_its_links_on_every_store(stack, auth):
    # Refused before its transaction: the filter's query and the batch's read run on dynalite too
    tag = f"refused-{secrets.token_hex(4)}"
    [plain] = created_tagged(stack, auth, tag, 1)
    [scheduled] = created_tagged(stack, auth, tag, 1, valid_from="2032-01-01T00:00:00Z")
    expiry = {"filter": {"tag": tag}, "action": "set_expiry", "expires_at": "2031-01-01T00:00:00Z"}
    refused = stack.request("POST", CHANGES, expiry, auth)
    assert (refused.status, [item["code"] for item in refused.json()["refused"]]) == (422, [scheduled])
    assert stack.request("GET", f"/links/{plain}", headers=auth).json()["expires_at"] is None


@NEEDS_A_BROWSER[0]
@NEEDS_A_BROWSER[1]
@pytest.mark.dynamodb_features("TransactWriteItems")  # so one browser run: on moto, as `make dev`
def test_the_console_changes_the_ticked_links_all_or_none(stack, auth, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    tag = f"tick-{secrets.token_hex(4)}"
    plain = created_tagged(stack, auth, tag, 2)
    [scheduled] = created_tagged(stack, auth, tag, 1, valid_from="2032-01-01T00:00:00Z")
    browser.get(f"{stack.base_url}/console")
    fill(browser, "api_key", stack.api_key)
    browser.find_element(By.ID, "sign-in").click()
    shown(browser, "create-link")
    browser.get(f"{stack.base_url}/console?tag={tag}")
    accessible(browser, "links-bulk-form")

    def tick(codes: list[str]) -> None:
        for code in codes:
            browser.find_element(By.CSS_SELECTOR, f'tr[data-code="{code}"] input[name="selected"]').click()

    # Two ticked and retagged
    tick(plain)
    Select(browser.find_element(By.ID, "bulk-action")).select_by_value("retag")
    fill(browser, "bulk-add-tags", "ticked")
    browser.find_element(By.ID, "bulk-submit").click()
    assert shown(browser, "changed").text == "2 links changed."
    tagged = stack.request("GET", "/links?tag=ticked&limit=100", headers=auth).json()["links"]
    assert set(plain) <= {link["code"] for link in tagged}
    # All three given an expiry the scheduled one cannot take: refused, naming it; none changed
    browser.get(f"{stack.base_url}/console?tag={tag}")
    tick([*plain, scheduled])
    Select(browser.find_element(By.ID, "bulk-action")).select_by_value("set_expiry")
    picker = browser.find_element(By.ID, "bulk-expires_at_local")
    browser.execute_script("arguments[0].value = '2031-01-01T09:30'", picker)
    browser.find_element(By.ID, "bulk-submit").click()
    assert "expires_at must be after valid_from" in shown(browser, "refused").text
    assert browser.find_elements(By.CSS_SELECTOR, f'#refused tr[data-code="{scheduled}"]')
    accessible(browser, "links-bulk-refused")
    assert [stack.request("GET", f"/links/{code}", headers=auth).json()["expires_at"] for code in plain] == [None] * 2
