"""The console's forms for the link options the API gained (query forwarding, fallback URL,
crawling, preview card, UTM fields), against moto: stored as the API stores them, shown on the
link's page and in its edit form, cleared by emptying them, and the API's 422 at their field;
the list filtered by campaign as GET /links?utm_campaign= filters."""

import html
import re
from urllib.parse import parse_qsl

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.links.destinations import Utm
from shortlink.links.previews import LinkPreview
from shortlink.links.use_cases import owned_link
from tests.integration.test_console import browser, create, link_count, signed_in

__all__ = ["browser"]  # a fixture, used by name

OPTIONS = {
    "drop_query": "on",
    "expired_url": "https://example.com/ended",
    "crawlable": "on",
    "preview_title": "Spring sale",
    "preview_description": "Everything half price",
    "preview_image": "https://example.com/card.png",
    "utm_source": "newsletter",
    "utm_medium": "email",
    "utm_campaign": "spring",
}


def field_error(body: str, field: str) -> str:
    found = re.search(rf'<p class="error field-error" id="{field}-error">([^<]*)</p>', body)
    assert found is not None, f"no error at {field}"
    return html.unescape(found.group(1))


def test_every_destination_option_is_stored_shown_prefilled_and_cleared_by_emptying_it(aws, browser):
    # Given a link created with every destination option
    key = aws.new_api_key()
    signed_in(browser, key)
    created = create(browser, url="https://example.com/spring", slug="options", **OPTIONS)
    assert created["statusCode"] == 303, created["body"]

    # Then it is stored as the API stores them
    owner = key_id_for(hash_api_key(key))
    link = owned_link("options", owner, services.link_repository())
    assert (link.forward_query, link.expired_url, link.crawlable) == (False, "https://example.com/ended", True)
    assert link.preview == LinkPreview("Spring sale", "Everything half price", "https://example.com/card.png")
    assert link.utm == Utm(source="newsletter", medium="email", campaign="spring")

    # And its page shows them, and its edit form holds them (each section open)
    page = browser.get("/console/links/options")["body"]
    assert 'id="forward-query">dropped<' in page
    assert 'id="crawlable">may index it<' in page
    assert "utm_source=newsletter, utm_medium=email, utm_campaign=spring" in page
    assert "description: Everything half price" in page
    form = browser.get("/console/links/options/edit")["body"]
    for section in ("forwarding", "preview", "utm"):
        assert f'<details id="{section}" open>' in form
    assert re.search(r'id="drop_query" name="drop_query" checked', form)
    assert re.search(r'id="crawlable" name="crawlable" checked', form)
    assert 'id="utm_campaign" name="utm_campaign" type="text" value="spring"' in form

    # When the edit form is saved with them emptied: each is cleared
    edited = browser.post("/console/links/options", {"csrf": browser.csrf(), "url": "https://example.com/spring"})
    assert edited["statusCode"] == 303, edited["body"]
    link = owned_link("options", owner, services.link_repository())
    assert (link.forward_query, link.expired_url, link.crawlable, link.preview, link.utm) == (
        True,
        None,
        False,
        None,
        None,
    )
    assert '<details id="utm">' in browser.get("/console/links/options/edit")["body"]


def test_the_apis_422_for_a_destination_option_appears_at_its_field_and_nothing_is_created(aws, browser):
    signed_in(browser, aws.new_api_key())
    url = "https://example.com/spring"
    cases = [
        ({"url": url, "preview_image": "not a url"}, "preview_image", "preview.image"),
        ({"url": url, "utm_source": "s" * 201}, "utm_source", "utm.source: String should have at most 200"),
        ({"url": f"{url}?utm_source=ad", "utm_source": "newsletter"}, "utm_source", "utm.source"),
        ({"url": url, "expired_url": "javascript:alert(1)"}, "expired_url", "expired_url"),
        ({"url": url, "private": "on", "crawlable": "on"}, "crawlable", "a private link cannot be"),
    ]
    for fields, field, words in cases:
        answer = create(browser, **fields)
        assert answer["statusCode"] == 422, fields
        assert words in field_error(answer["body"], field), fields
        assert "Please correct the fields marked below" in answer["body"]
    assert link_count(aws) == 0


def listed_codes(page: str) -> list[str]:
    return re.findall(r'<tr data-code="([^"]+)"', page)


def test_the_list_shows_one_campaigns_links_in_search_and_on_every_page(aws, handlers, browser, api):
    # Given 26 links of the campaign spring (more than a page), one of autumn and one of none
    key = aws.new_api_key()
    for index in range(26):
        api.new_link(key, slug=f"spring-{index}", utm={"campaign": "spring"})
    api.new_link(key, slug="autumn", title="sale", utm={"campaign": "autumn"})
    api.new_link(key, slug="plain", title="sale")
    signed_in(browser, key)

    # When the list is filtered by campaign: its links only, the field labelled and holding it
    first = browser.get("/console", utm_campaign="spring")["body"]
    assert listed_codes(first) == [f"spring-{index}" for index in range(25, 0, -1)]
    assert '<label for="utm_campaign">Campaign (utm_campaign)</label>' in first
    assert '<input id="utm_campaign" name="utm_campaign" value="spring" maxlength="200">' in first
    assert "<caption>Newest first, in campaign spring</caption>" in first
    # And the next page keeps the filter
    next_page = re.search(r'<a href="/console\?([^"]+)" id="next-page">', first)
    assert next_page is not None
    query = dict(parse_qsl(html.unescape(next_page.group(1))))
    assert query["utm_campaign"] == "spring"
    assert listed_codes(browser.get("/console", **query)["body"]) == ["spring-0"]
    # And a search is filtered too
    assert listed_codes(browser.get("/console", q="sale", utm_campaign="autumn")["body"]) == ["autumn"]
    assert 'id="no-links">No links match.' in browser.get("/console", utm_campaign="winter")["body"]

    # A campaign no link can have is refused, as a bad tag is
    refused = browser.get("/console", utm_campaign="c" * 201)
    assert (refused["statusCode"], "a campaign is at most 200 characters" in refused["body"]) == (400, True)
