"""The web console in a real headless Chromium against the local stack (as `make dev` runs it):
a marketer's whole round, axe-core on every page, a screenshot of each (console-screenshots/,
git-ignored). Driven and skipped as the password page's browser test is. Every request goes
through the local stack's edge (tools.developers.devstack.edge), which replaces Host with the API's own, as
CloudFront does: each form post passes the console's origin check as it would behind the edge."""

import json
import re
import secrets
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_password_page_browser import (  # the same browser and destination
    CHROMEDRIVER,
    CHROMIUM,
    Destination,
    browser,
    destination,
)
from tests.qr_decoding import logo_file

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules/axe-core/axe.min.js"
SCREENSHOTS = ROOT / "console-screenshots"

# What a browser test with axe-core needs (each such module's pytestmark starts with these).
NEEDS_A_BROWSER = [
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="Debian's chromium and chromium-driver are not installed; `make e2e` installs them with apt-get "
        "when it runs as root, and could not here",
    ),
    pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed: run `npm ci` (make e2e does)"),
]

pytestmark = [
    *NEEDS_A_BROWSER,
    # Custom slugs are written in a transaction: one stack start (moto's) is enough.
    pytest.mark.dynamodb_features("TransactWriteItems"),
]
__all__ = ["browser", "destination"]  # fixtures used by name


def accessible(driver: Any, name: str) -> None:
    """No serious or critical axe-core violation on the page shown; a screenshot of it."""
    driver.execute_script(AXE.read_text())
    violations = driver.execute_async_script(
        "axe.run(document, {resultTypes: ['violations']}).then(r => arguments[arguments.length - 1](r.violations))"
    )
    grave = [
        (violation["id"], [node["target"] for node in violation["nodes"]])
        for violation in violations
        if violation["impact"] in ("serious", "critical")
    ]
    assert grave == [], f"{name}: {json.dumps(grave)}"
    SCREENSHOTS.mkdir(exist_ok=True)
    driver.set_window_size(1280, max(900, driver.execute_script("return document.body.scrollHeight")))
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def follow_with_password(stack: Any, code: str, password: str) -> str:
    """Follow the short link over HTTP as a visitor from Germany: the password form, then its post."""
    viewer = {"CloudFront-Viewer-Country": "DE", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0"}
    assert stack.request("GET", f"/{code}", headers=viewer).status == 200  # the password page
    form = urllib.parse.urlencode({"password": "browser-pass-1"})
    headers = {**viewer, "Content-Type": "application/x-www-form-urlencoded"}
    answer = stack.request("POST", f"/{code}", form, headers)
    assert answer.status == 303, answer.body
    return str(answer.headers["location"])


def test_a_marketer_signs_in_creates_follows_reads_edits_deletes_restores_and_signs_out(
    stack, browser, destination, tmp_path
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def shown(element_id: str) -> Any:
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    def fill(element_id: str, text: str) -> None:
        field = browser.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def open_section(section_id: str) -> None:
        section = browser.find_element(By.ID, section_id)
        if not section.get_attribute("open"):
            section.find_element(By.TAG_NAME, "summary").click()

    console = f"{stack.base_url}/console"
    slug = f"spring-{secrets.token_hex(3)}"

    # Sign in: the console sends a visitor without a session to the sign-in page.
    browser.get(console)
    shown("api_key")
    assert browser.current_url == f"{console}/sign-in"
    accessible(browser, "sign-in")
    fill("api_key", "sl_not-a-key")
    browser.find_element(By.ID, "sign-in").click()
    assert "not valid" in shown("sign-in-error").text
    fill("api_key", stack.api_key)
    browser.find_element(By.ID, "sign-in").click()
    shown("create-link")
    assert browser.execute_script("return document.cookie") == ""  # HttpOnly: no script sees it
    assert browser.execute_script("return localStorage.length + sessionStorage.length") == 0
    accessible(browser, "links")

    # Create a link with a slug, tags, an expiry, a password, an allow rule and an A/B split.
    browser.find_element(By.ID, "create-link").click()
    shown("link-form")
    fill("url", destination)
    fill("slug", slug)
    fill("title", "Spring sale")
    fill("tags", "spring newsletter")
    open_section("schedule")
    picker = browser.find_element(By.ID, "expires_at_local")
    browser.execute_script("arguments[0].value = '2030-06-01T09:30'", picker)
    open_section("protection")
    fill("password", "browser-pass-1")
    open_section("access")
    fill("allow_countries", "DE AT")
    open_section("split")
    fill("variant_0_url", f"{destination}?variant=a")
    fill("variant_0_weight", "70")
    fill("variant_1_url", f"{destination}?variant=b")
    fill("variant_1_weight", "30")
    assert browser.find_element(By.ID, "variant_0_share").text == "70 %"
    assert browser.find_element(By.ID, "variant_1_share").text == "30 %"
    for section in ("forwarding", "preview", "utm"):  # opened for axe: left empty, the API's defaults
        open_section(section)
    accessible(browser, "new-link")
    browser.find_element(By.ID, "save").click()
    shown("created")
    # The expiry was picked in the browser's zone and stored in UTC.
    expected_expiry = browser.execute_script("return new Date('2030-06-01T09:30').toISOString()")
    settings = browser.find_element(By.ID, "settings").text
    assert "Spring sale" in browser.title or "Spring sale" in browser.page_source
    assert "spring, newsletter" in settings
    assert browser.find_element(By.ID, "password").text == "yes"
    assert (
        browser.find_element(By.CSS_SELECTOR, "#expires time")
        .get_attribute("datetime")
        .startswith(expected_expiry[:16])
    )
    rules = json.loads(browser.find_element(By.ID, "rules").text)
    assert rules["allow"] == {"countries": ["DE", "AT"]}
    assert [variant["weight"] for variant in rules["routes"][0]["split"]] == [70, 30]

    # Find it in the list.
    browser.get(f"{console}?q={slug}")
    assert browser.find_element(By.CSS_SELECTOR, f"tr[data-code='{slug}']")

    # Follow it over HTTP, then see the click on its page: the chart's point and the country bar.
    landed = follow_with_password(stack, slug, "browser-pass-1")
    assert landed in (f"{destination}?variant=a", f"{destination}?variant=b")
    deadline = time.monotonic() + 30
    while True:
        browser.get(f"{console}/links/{slug}?range=24h")
        if browser.find_element(By.ID, "total-clicks").text == "1" or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert browser.find_element(By.ID, "total-clicks").text == "1"
    chart_clicks = browser.execute_script("return document.getElementById('chart').chart.data[1]")
    assert sum(chart_clicks) == 1
    assert "DE" in browser.find_element(By.ID, "bars-country").text
    assert browser.find_elements(By.CSS_SELECTOR, "#world-map path[data-country='DE'].level-4")  # the map's shade
    accessible(browser, "link")

    # Style its QR code (the colour pickers set as a person's pick would, a logo file chosen), then see it drawn.
    browser.execute_script("document.getElementById('qr-dark').value = '#1a237e'")
    logo = tmp_path / "logo.png"
    logo.write_bytes(logo_file("PNG"))
    browser.find_element(By.ID, "qr-logo-file").send_keys(str(logo))
    save = browser.find_element(By.ID, "qr-save")
    save.click()
    WebDriverWait(browser, 30).until(expected_conditions.staleness_of(save))  # the page after the post
    assert "this link's own, with a logo" in shown("qr-source").text
    assert browser.execute_script("return document.getElementById('qr').naturalWidth") > 0

    # The list sorted by people's clicks over 7 days: its sparkline says the click (today's, last).
    browser.get(f"{console}?sort=clicks&tag=spring")
    line = browser.find_element(By.CSS_SELECTOR, f"tr[data-code='{slug}'] svg.sparkline")
    assert line.get_attribute("data-values").endswith(",1")
    accessible(browser, "links-by-clicks")
    browser.get(f"{console}/links/{slug}")

    # Edit the destination.
    browser.find_element(By.ID, "edit").click()
    shown("link-form")
    accessible(browser, "edit")
    fill("url", f"{destination}?edited=1")
    browser.find_element(By.ID, "save").click()
    assert shown("destination").text == f"{destination}?edited=1"

    # Delete (it asks first), then restore from the list's deleted links.
    browser.find_element(By.ID, "delete").click()
    shown("confirm").click()
    shown("deleted")
    browser.find_element(By.CSS_SELECTOR, f"#deleted tr[data-code='{slug}'] button.restore").click()
    shown("edit")
    assert browser.find_elements(By.ID, "deleted-notice") == []

    # The same code on the stack's second domain: picked in the form, then its page and QR code,
    # and the list's domain filter.
    browser.get(f"{console}/links/new")
    fill("url", destination)
    fill("slug", slug)
    Select(browser.find_element(By.ID, "domain")).select_by_value("go.localhost")
    browser.find_element(By.ID, "save").click()
    shown("created")
    assert browser.find_element(By.ID, "short-url").text == f"http://go.localhost:{stack.port}/{slug}"
    assert browser.find_element(By.ID, "destination").text == destination  # not the default's, edited
    assert browser.execute_script("return document.getElementById('qr').naturalWidth") > 0
    browser.get(f"{console}?domain=go.localhost")
    rows = browser.find_elements(By.CSS_SELECTOR, f"#links tr[data-code='{slug}']")
    assert [row.find_element(By.CLASS_NAME, "code").text for row in rows] == [
        f"http://go.localhost:{stack.port}/{slug}"
    ]
    accessible(browser, "links-on-a-domain")

    # The account overview, filtered to one of the link's tags: its click among the top links
    # (the stream aggregator counts it a moment after ingest), the chart, the bars, the CSV.
    deadline = time.monotonic() + 30
    while True:
        browser.get(f"{console}/overview?tag=newsletter&range=24h")
        ranked = browser.find_elements(By.CSS_SELECTOR, f"#top-links a[href='/console/links/{slug}']")
        if ranked or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert ranked, "the link's click never reached the account overview"
    assert ranked[0].find_element(By.XPATH, "..").find_element(By.CLASS_NAME, "bar-value").text == "1"
    assert sum(browser.execute_script("return document.getElementById('chart').chart.data[1]")) >= 1
    assert "DE" in browser.find_element(By.ID, "bars-country").text
    assert "tag=newsletter" in browser.find_element(By.ID, "csv").get_attribute("href")
    accessible(browser, "overview")
    ranked[0].click()
    shown("edit")

    # Keys: create a read-only key for a dashboard (shown once), then revoke it.
    browser.find_element(By.ID, "keys-page").click()
    shown("key-form")
    fill("name", "Dashboard")
    browser.find_element(By.ID, "scope-stats-read").click()  # links:read is ticked already
    browser.find_element(By.ID, "create-key").click()
    new_key = shown("new-key").text
    assert re.fullmatch(r"sl_[0-9A-Za-z]{32}", new_key), new_key
    accessible(browser, "keys")
    [row] = [row for row in browser.find_elements(By.CSS_SELECTOR, "#keys tbody tr") if "Dashboard" in row.text]
    assert "links:read, stats:read" in row.text
    row.find_element(By.CSS_SELECTOR, "button.revoke").click()
    shown("confirm").click()
    shown("key-form")
    assert new_key not in browser.page_source
    [row] = [row for row in browser.find_elements(By.CSS_SELECTOR, "#keys tbody tr") if "Dashboard" in row.text]
    assert row.find_element(By.CLASS_NAME, "state").text == "revoked"

    # Audit log: the round's changes, newest first, then only the links' (the filter by kind).
    browser.find_element(By.ID, "audit-page").click()
    shown("audit-filter")
    logged = [row.get_attribute("data-action") for row in browser.find_elements(By.CSS_SELECTOR, "#audit tbody tr")]
    assert logged[:2] == ["key.revoked", "key.created"], logged
    assert {"link.created", "link.edited", "link.deleted", "link.restored", "session.signed_in"} <= set(logged)
    accessible(browser, "audit")
    Select(browser.find_element(By.ID, "target")).select_by_value("link")
    browser.find_element(By.CSS_SELECTOR, "#audit-filter button").click()
    WebDriverWait(browser, 30).until(expected_conditions.url_contains("target=link"))
    targets = {row.get_attribute("data-action") for row in browser.find_elements(By.CSS_SELECTOR, "#audit tbody tr")}
    assert targets, "no link entries"
    assert all(action.startswith("link.") for action in targets), targets

    # Sign out: the session is gone, on the server too: its cookie, kept, signs nobody in.
    kept = browser.get_cookie("console_session")["value"]
    browser.find_element(By.ID, "sign-out").click()
    shown("api_key")
    browser.get(console)
    assert browser.current_url == f"{console}/sign-in"
    replayed = stack.request("GET", "/console", headers={"Cookie": f"console_session={kept}"})
    assert (replayed.status, replayed.headers["location"]) == (303, "/console/sign-in?why=ended")
    assert Destination.requests == []  # the browser never followed the link: the HTTP client did


def test_a_read_only_key_sees_links_but_no_create_button_and_its_post_is_refused(stack, browser, auth, destination):
    from selenium.webdriver.common.by import By

    from shortlink.access.api_keys import hash_api_key, key_id_for
    from tests.e2e.test_devstack_lifecycle import admin

    # Given a link of the stack key's account and a read-only key of that account (the admin command's)
    made = stack.request("POST", "/links", {"url": destination, "title": "Viewer's view"}, auth)
    assert made.status == 201, made.body
    code = made.json()["code"]
    account = key_id_for(hash_api_key(stack.api_key))
    created = admin(
        "keys", "create", "--name", "viewer", "--scope", "links:read", "--scope", "stats:read", "--owner", account,
        MOTO_PORT=str(stack.moto_port),
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    key = re.search(r"sl_[0-9A-Za-z]+", created.stdout)
    assert key is not None, created.stdout

    # When it signs in: the account's links, and nothing to create them with
    browser.get(f"{stack.base_url}/console/sign-in")
    browser.find_element(By.ID, "api_key").send_keys(key.group(0))
    browser.find_element(By.ID, "sign-in").click()
    browser.get(f"{stack.base_url}/console?q={code}")
    assert browser.find_element(By.CSS_SELECTOR, f"tr[data-code='{code}']")
    assert browser.find_elements(By.ID, "create-link") == []
    assert browser.find_elements(By.ID, "new-link") == []

    # Then the form is refused, and so is a post made from the console's own page (its CSRF token)
    browser.get(f"{stack.base_url}/console/links/new")
    assert "links:write" in browser.find_element(By.ID, "error").text
    browser.get(f"{stack.base_url}/console/links/{code}")
    refused = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const csrf = document.querySelector("input[name=csrf]").value;
        fetch("/console/links", {method: "POST", body: new URLSearchParams({csrf, url: arguments[0]})})
          .then(answer => answer.text().then(text => done([answer.status, text])));""",
        destination,
    )
    assert refused[0] == 403
    assert "links:write" in refused[1]
    browser.find_element(By.ID, "sign-out").click()
