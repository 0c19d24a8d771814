"""Destinations over real HTTP through the local stack: checked and stored as browsers read them."""

from urllib.parse import urlsplit

import pytest

OWN_SPELLINGS = ["127.1", "2130706433", "0x7f.0.0.1", "017700000001", "[::ffff:127.0.0.1]", "%31%32%37.0.0.1"]


@pytest.mark.parametrize("spelling", OWN_SPELLINGS)
def test_the_stacks_own_address_in_any_spelling_is_refused(stack, auth, spelling):
    port = urlsplit(stack.base_url).port
    refused = stack.request("POST", "/links", {"url": f"http://{spelling}:{port}/"}, auth)
    assert (refused.status, refused.json()["error"]) == (422, "invalid_url"), refused.body
    assert "redirect loop" in refused.json()["message"]


@pytest.mark.parametrize("url", ["https://⒈.com/", "https://-example.com/", "https://xn--/", "https://[v1.fe]/"])
def test_invalid_hosts_are_refused(stack, auth, url):
    refused = stack.request("POST", "/links", {"url": url}, auth)
    assert (refused.status, refused.json()["error"]) == (422, "invalid_url"), refused.body


def test_the_location_is_the_browsers_reading_of_the_url(stack, auth):
    created = stack.request("POST", "/links", {"url": "HTTPS://Bücher.Example\\ü?q=ö"}, auth)
    assert created.status == 201, created.body
    expected = "https://xn--bcher-kva.example/%C3%BC?q=%C3%B6"
    assert created.json()["url"] == expected
    assert stack.request("GET", f"/{created.json()['code']}").headers["location"] == expected
