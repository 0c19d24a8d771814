"""forward_query, expired_url, crawlable, preview and utm, checked at save by create and edit
(issue 16 items 1, 3, 4, 5, 7): a refusal names the field and stores nothing."""

import pytest

from shortlink.errors import InvalidLinkOption
from shortlink.links.destinations import Utm
from shortlink.links.model import LinkChanges, LinkOptions
from shortlink.links.previews import LinkPreview
from shortlink.links.use_cases import create_link, edit_link
from shortlink.web.urls import DestinationPolicy
from tests.fakes import InMemoryLinks
from tests.unit.test_links import NOW, generator

POLICY = DestinationPolicy.of(["sho.rt"], ["blocked.example"])


def test_the_options_are_stored_with_urls_as_browsers_read_them():
    links = InMemoryLinks()
    options = LinkOptions(
        forward_query=False,
        expired_url="HTTPS://Example.com/ended",
        crawlable=True,
        preview=LinkPreview(title="T", image="https://CDN.example/i.png"),
        utm=Utm(source="news", campaign="spring"),
    )
    link = create_link("https://example.com/p", "owner-1", generator(), links, NOW, options, POLICY)
    stored = links.items[link.code]
    assert (stored.forward_query, stored.crawlable) == (False, True)
    assert stored.expired_url == "https://example.com/ended"
    assert stored.preview == LinkPreview(title="T", image="https://cdn.example/i.png")
    assert stored.utm == Utm(source="news", campaign="spring")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        (LinkOptions(private=True, crawlable=True), "crawlable"),
        (LinkOptions(expired_url="ftp://example.com/"), "expired_url"),
        (LinkOptions(expired_url="https://sho.rt/other"), "expired_url"),  # a loop
        (LinkOptions(preview=LinkPreview(image="https://blocked.example/i.png")), "preview.image"),
        (LinkOptions(preview=LinkPreview(image="javascript:alert(1)")), "preview.image"),
        (LinkOptions(utm=Utm(source="x")), "utm.source"),  # the url sets utm_source already
        (LinkOptions(utm=Utm(content="c" * 2048)), "utm"),
    ],
)
def test_options_the_redirect_could_not_honour_are_refused_naming_the_field(options, field):
    links = InMemoryLinks()
    with pytest.raises(InvalidLinkOption) as refused:
        create_link("https://example.com/?utm_source=a", "owner-1", generator(), links, NOW, options, POLICY)
    assert refused.value.field == field
    assert str(refused.value).startswith(field)
    assert links.items == {}


def test_an_edit_is_checked_against_the_link_it_would_make():
    links = InMemoryLinks()
    link = create_link("https://example.com/p", "owner-1", generator(), links, NOW, LinkOptions(utm=Utm(source="s")))
    # A new url that sets what the link's utm sets is refused, and nothing changes
    with pytest.raises(InvalidLinkOption) as refused:
        edit_link(link.code, "owner-1", LinkChanges(url="https://example.com/?utm_source=x"), links, NOW, POLICY)
    assert refused.value.field == "utm.source"
    with pytest.raises(InvalidLinkOption):
        edit_link(link.code, "owner-1", LinkChanges(expired_url="https://sho.rt/x"), links, NOW, POLICY)
    assert links.items[link.code] == link
    # Setting and clearing
    changes = LinkChanges(crawlable=True, forward_query=False, preview=LinkPreview(description="d"))
    edited = edit_link(link.code, "owner-1", changes, links, NOW, POLICY)
    assert (edited.crawlable, edited.forward_query, edited.preview) == (True, False, LinkPreview(description="d"))
    cleared = edit_link(link.code, "owner-1", LinkChanges(cleared=frozenset({"utm", "preview"})), links, NOW, POLICY)
    assert (cleared.utm, cleared.preview, cleared.crawlable) == (None, None, True)


def test_a_private_link_cannot_be_made_crawlable_by_an_edit():
    links = InMemoryLinks()
    link = create_link("https://example.com/p", "owner-1", generator(), links, NOW, LinkOptions(private=True))
    with pytest.raises(InvalidLinkOption) as refused:
        edit_link(link.code, "owner-1", LinkChanges(crawlable=True), links, NOW, POLICY)
    assert refused.value.field == "crawlable"
