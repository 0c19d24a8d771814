"""Screenshots of the console's main pages for the docs, taken in Debian's headless Chromium
against a running `make dev` (signed in with its API key, which `make dev` prints). They are build
output: written to docs/screenshots/ (git-ignored, never committed), where the Console page shows
them when they are there (tools/developers/docs_screenshots.py, a mkdocs hook).

    python -m tools.developers.screenshots --url http://127.0.0.1:3000 --api-key sl_...
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "docs" / "screenshots"
WIDTH, MIN_HEIGHT = 1280, 800
# The pages shown, in the docs' order: (file name, path; None for the page of the most clicked link).
PAGES: tuple[tuple[str, str | None], ...] = (
    ("links", "/console"),
    ("link", None),
    ("overview", "/console/overview"),
    ("keys", "/console/keys"),
    ("audit", "/console/audit"),
)


def chromium() -> Any:
    """Headless Debian Chromium through chromedriver, calling nowhere but the stack."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver is None:
        sys.exit("Debian's chromium and chromium-driver are needed: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='screenshots-')}"):  # fmt: skip
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def save(browser: Any, name: str) -> Path:
    """The whole page shown, as docs/screenshots/<name>.png."""
    browser.set_window_size(WIDTH, max(MIN_HEIGHT, browser.execute_script("return document.body.scrollHeight")))
    path = TARGET / f"{name}.png"
    browser.save_screenshot(str(path))
    return path


def take(url: str, api_key: str) -> list[Path]:
    """Sign in to the console at `url` with `api_key`, then save each page of PAGES."""
    from selenium.webdriver.common.by import By

    TARGET.mkdir(parents=True, exist_ok=True)
    browser = chromium()
    try:
        browser.get(f"{url}/console/sign-in")
        browser.find_element(By.ID, "api_key").send_keys(api_key)
        browser.find_element(By.ID, "sign-in").click()
        saved = []
        for name, path in PAGES:
            if path is None:
                browser.get(f"{url}/console?sort=clicks")
                first = browser.find_elements(By.CSS_SELECTOR, "#links a.code")
                if not first:
                    print("no link to show: create one (the Getting started page does) and run again")
                    continue
                first[0].click()
            else:
                browser.get(f"{url}{path}")
            saved.append(save(browser, name))
        return saved
    finally:
        browser.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:3000", help="the stack `make dev` runs")
    parser.add_argument("--api-key", required=True, help="the API key `make dev` prints (SHORTLINK_API_KEY)")
    arguments = parser.parse_args()
    for path in take(arguments.url.rstrip("/"), arguments.api_key):
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
