"""A QR style's logo uploaded from the console's form (multipart/form-data, no script needed),
against moto: for a link and as the workspace's default, through the API's normalising path;
anything but a PNG or JPEG within bounds is refused naming the logo, and nothing is saved."""

import base64
import html
import re
from typing import Any

import pytest
from urllib3 import encode_multipart_formdata

from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.console.plumbing import MAX_UPLOAD_BYTES
from shortlink.links.qr_styles import MAX_LOGO_BYTES
from tests.events import http_event
from tests.integration.test_console import HOST, OWN_ORIGIN, Browser, create, scoped_key, signed_in
from tests.qr_decoding import decoded, logo_file

pytestmark = pytest.mark.one_account_per_module
SHORT_URL = f"https://{HOST}/logo"


@pytest.fixture
def browser(aws, handlers) -> Browser:
    return Browser(handlers)


def posted_style(browser: Browser, code: str, logo: tuple[str, bytes, str] | None, **fields: str) -> dict[str, Any]:
    """The QR style form posted as a browser posts it with a file input: multipart, base64 by API Gateway."""
    parts: dict[str, Any] = {"csrf": browser.csrf(), "dark": "#000000", "light": "#ffffff", "margin": "4", **fields}
    if logo is not None:
        parts["logo_file"] = logo
    body, content_type = encode_multipart_formdata(parts)
    headers = {"host": HOST, "origin": OWN_ORIGIN, "content-type": content_type}
    event = http_event("POST", f"/console/links/{code}/qr-style", headers=headers, route="/console/{proxy+}")
    event.update({"body": base64.b64encode(body).decode(), "isBase64Encoded": True})
    event["cookies"] = [f"console_session={browser.cookie}"]
    answer: dict[str, Any] = browser.handlers["ConsoleFunction"](event)
    return answer


def style_source(browser: Browser, code: str) -> str:
    found = re.search(r'id="qr-source">Style: ([^<]*)</p>', browser.get(f"/console/links/{code}")["body"])
    assert found
    return html.unescape(found.group(1))


def test_a_logo_uploaded_in_the_console_is_drawn_for_the_link_and_as_the_default(aws, browser):
    signed_in(browser, aws.new_api_key())
    for slug in ("logo", "other"):
        assert create(browser, url=f"https://example.com/{slug}", slug=slug)["statusCode"] == 303
    page = browser.get("/console/links/logo")["body"]
    assert 'enctype="multipart/form-data"' in page
    assert 'type="file" id="qr-logo-file" name="logo_file" accept="image/png,image/jpeg"' in page
    # When a PNG is uploaded for the link, Then its code carries the logo at level H and still scans
    assert posted_style(browser, "logo", ("logo.png", logo_file("PNG"), "image/png"), save="link")["statusCode"] == 303
    assert style_source(browser, "logo") == "this link's own, with a logo (error correction H)."
    png = browser.get("/console/links/logo/qr.png")
    assert decoded(base64.b64decode(png["body"]), "image/png") == [SHORT_URL]
    # and saving the style again without a file keeps the logo
    assert posted_style(browser, "logo", None, save="link", dark="#1b5e20")["statusCode"] == 303
    assert style_source(browser, "logo") == "this link's own, with a logo (error correction H)."
    # When a JPEG is uploaded as the workspace's default, Then another link follows it
    jpeg = ("logo.jpg", logo_file("JPEG"), "image/jpeg")
    assert posted_style(browser, "other", jpeg, save="workspace")["statusCode"] == 303
    assert style_source(browser, "other") == "the workspace's default, with a logo (error correction H)."
    other = browser.get("/console/links/other/qr.png")
    assert decoded(base64.b64decode(other["body"]), "image/png") == [f"https://{HOST}/other"]


REFUSED = [
    (("logo.gif", b"GIF89a" + bytes(40), "image/gif"), 422, "a logo is a PNG or JPEG image that decodes"),
    (("logo.png", b"\x89PNG\r\n\x1a\n" + bytes(40), "image/png"), 422, "a logo is a PNG or JPEG image that decodes"),
    (("big.png", bytes(MAX_LOGO_BYTES + 1), "image/png"), 422, f"a logo is at most {MAX_LOGO_BYTES // 1024} KB"),
    (("huge.png", bytes(MAX_UPLOAD_BYTES), "image/png"), 413, f"at most {MAX_UPLOAD_BYTES} bytes"),
    (("side.png", logo_file("PNG", (1025, 8)), "image/png"), 422, "at most 1024 pixels a side"),
]


def test_a_logo_that_is_not_a_png_or_jpeg_within_bounds_or_a_forged_post_saves_nothing(aws, handlers, browser):
    key = aws.new_api_key()
    signed_in(browser, key)
    assert create(browser, url="https://example.com/logo", slug="logo")["statusCode"] == 303
    # Each refused naming the logo's rule (or the form's size), never a 500
    for logo, status, problem in REFUSED:
        refused = posted_style(browser, "logo", logo, save="link")
        assert (refused["statusCode"], problem in refused["body"]) == (status, True), logo[0]
    # A post without the session's token, or a body that is not the multipart it claims
    png = ("logo.png", logo_file("PNG"), "image/png")
    assert posted_style(browser, "logo", png, save="link", csrf="0" * 64)["statusCode"] == 403
    # A key that may not write links sets no logo; one that is no admin sets no workspace default
    owner = key_id_for(hash_api_key(key))
    for scopes, save in ((("links:read",), "link"), (("links:read", "links:write"), "workspace")):
        scoped = signed_in(Browser(handlers), scoped_key(*scopes, owner=owner))
        assert posted_style(scoped, "logo", png, save=save)["statusCode"] == 403, scopes
    headers = {"host": HOST, "origin": OWN_ORIGIN, "content-type": "multipart/form-data; boundary=x"}
    path, route = "/console/links/logo/qr-style", "/console/{proxy+}"
    event = http_event("POST", path, headers=headers, body="--y\r\nno parts", route=route)
    event["cookies"] = [f"console_session={browser.cookie}"]
    answer = browser.handlers["ConsoleFunction"](event)
    assert (answer["statusCode"], "multipart/form-data" in answer["body"]) == (400, True)
    assert style_source(browser, "logo") == "plain."
