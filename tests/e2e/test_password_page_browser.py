"""The password page in a real headless Chromium (Debian's chromium, driven by chromedriver
through Selenium): a wrong password shows the form again with an error, the right one lands on
the destination with a GET that carries no password."""

import shutil
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed; `make e2e` installs them with apt-get "
    "when it runs as root, and could not here",
)


class Destination(BaseHTTPRequestHandler):
    """The page a link leads to; remembers how it was reached."""

    requests: ClassVar[list[tuple[str, str]]] = []

    def do_GET(self) -> None:
        Destination.requests.append((self.command, self.path))
        body = b"<!doctype html><title>Welcome</title><h1 id=welcome>Welcome in</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args: Any) -> None:
        pass


DESTINATION_HOST = "destination.test"


@pytest.fixture
def destination() -> Iterator[str]:
    # Links may not point at a loopback address: the destination has a name of its own, which
    # the browser (and only the browser) resolves to this machine.
    server = ThreadingHTTPServer(("127.0.0.2", 0), Destination)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Destination.requests = []
    yield f"http://{DESTINATION_HOST}:{server.server_address[1]}/welcome"
    server.shutdown()


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    with tempfile.TemporaryDirectory() as profile:
        # No sandbox (root in CI) and none of Chromium's background calls home (a closed network).
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            f"--host-resolver-rules=MAP {DESTINATION_HOST} 127.0.0.2",
            f"--user-data-dir={profile}",
        ):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(30)
        try:
            yield driver
        finally:
            driver.quit()


def test_the_password_page_unlocks_the_link_in_a_real_browser(stack, auth, destination, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    def shown(element_id: str) -> Any:
        # A submit returns before the next page loads (and checking a password takes ~0.3 s).
        return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))

    created = stack.request("POST", "/links", {"url": destination, "password": "browser-pass-1"}, auth)
    assert created.status == 201, created.body
    short_url = created.json()["short_url"]

    browser.get(short_url)
    assert browser.title == "Password required"
    field = browser.find_element(By.ID, "password")
    assert field.get_attribute("type") == "password"
    field.send_keys("not the password")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert shown("error").text == "Wrong password. Try again."
    # Still on the form, at the address it posts to (its own path: docs/links.md)
    code = created.json()["code"]
    assert browser.current_url == short_url.removesuffix(code) + f"unlock/{code}"
    assert Destination.requests == []

    browser.find_element(By.ID, "password").send_keys("browser-pass-1")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert shown("welcome").text == "Welcome in"
    assert browser.current_url == destination
    # A GET after the 303 (then the browser's own favicon request): the password stays behind.
    assert Destination.requests[0] == ("GET", "/welcome")
    assert all(method == "GET" for method, _ in Destination.requests)
