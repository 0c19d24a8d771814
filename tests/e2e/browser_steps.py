"""What a browser test does on a page, by element id: wait until an element is shown, fill a field."""

from typing import Any


def shown(browser: Any, element_id: str) -> Any:
    """The element `element_id`, once the page shows it (30 s at most)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, 30).until(expected_conditions.presence_of_element_located((By.ID, element_id)))


def fill(browser: Any, element_id: str, text: str) -> None:
    """Type `text` into the field `element_id` once the page shows it, replacing what it held."""
    field = shown(browser, element_id)
    field.clear()
    field.send_keys(text)


def submitted(browser: Any, button: Any) -> None:
    """Click `button` and wait for the page it leaves (30 s at most): what the next step reads is
    the next page's, even where both pages hold the same ids."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    button.click()
    WebDriverWait(browser, 30).until(expected_conditions.staleness_of(button))
