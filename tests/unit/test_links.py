from datetime import UTC, datetime, timedelta

import pytest

from shortlink.codes.generator import CodeGenerator
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.errors import InvalidLinkOption, InvalidUrl, LinkNotFound, NoFreeCode, SlugTaken
from shortlink.links.destinations import Utm
from shortlink.links.keys import is_possible_code
from shortlink.links.model import Availability, Link, LinkOptions
from shortlink.links.previews import LinkPreview
from shortlink.links.use_cases import MAX_CODE_ATTEMPTS, create_link, owned_link
from tests.fakes import InMemoryCounter, InMemoryLinks

KEY = b"unit-test-permutation-key-0123456789"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
# The options a link keeps as they are given (private: see the private code's test).
STORED_AS_CHOSEN = (
    "valid_from",
    "expires_at",
    "redirect_type",
    "tags",
    "title",
    "max_clicks",
    "forward_query",
    "expired_url",
    "crawlable",
    "preview",
    "utm",
    "domain",
)


def generator() -> CodeGenerator:
    return CodeGenerator(IdBlockAllocator(InMemoryCounter(), 1000), KEY, 7)


def test_create_stores_the_link_under_a_fresh_code():
    links = InMemoryLinks()
    link = create_link("https://example.com", "owner-1", generator(), links, NOW)
    assert links.items[link.code] == Link(link.code, "https://example.com/", "owner-1", NOW)  # as browsers read it


def test_a_taken_code_makes_create_take_the_next_id():
    # Given the code of id 0 is already taken (say, restored from a backup)
    taken = generator().next_code()
    links = InMemoryLinks()
    links.items[taken] = Link(taken, "https://old.example", "someone", NOW)
    # When a link is created
    link = create_link("https://example.com", "owner-1", generator(), links, NOW)
    # Then it got the code of id 1, and the old link is untouched
    second = generator()
    second.next_code()
    assert link.code == second.next_code()
    assert links.items[taken].url == "https://old.example"


def test_create_gives_up_loudly_after_a_bounded_number_of_collisions():
    codes = generator()
    links = InMemoryLinks()
    probe = generator()
    for _ in range(MAX_CODE_ATTEMPTS):
        code = probe.next_code()
        links.items[code] = Link(code, "https://x.example", "o", NOW)
    with pytest.raises(NoFreeCode):
        create_link("https://example.com", "owner-1", codes, links, NOW)
    assert len(links.items) == MAX_CODE_ATTEMPTS


def test_invalid_url_writes_nothing():
    links = InMemoryLinks()
    with pytest.raises(InvalidUrl):
        create_link("ftp://example.com", "owner-1", generator(), links, NOW)
    assert links.items == {}


def test_another_owners_link_is_reported_missing():
    links = InMemoryLinks()
    link = create_link("https://example.com", "owner-1", generator(), links, NOW)
    assert owned_link(link.code, "owner-1", links) == link
    with pytest.raises(LinkNotFound):
        owned_link(link.code, "owner-2", links)


@pytest.mark.parametrize("code", ["", "a/b", "x" * 65, "x" * 5000, "ab.cd", "%2e%2e", "é"])
def test_malformed_codes_are_not_looked_up(code):
    links = InMemoryLinks()
    with pytest.raises(LinkNotFound):
        owned_link(code, "owner-1", links)
    assert links.gets == 0


def test_unknown_code_is_not_found_after_one_lookup():
    links = InMemoryLinks()
    with pytest.raises(LinkNotFound):
        owned_link("abcdefg", "owner-1", links)
    assert links.gets == 1


def test_a_custom_slug_becomes_the_code_and_claims_every_look_alike():
    links = InMemoryLinks()
    link = create_link("https://example.com", "owner-1", generator(), links, NOW, LinkOptions(slug="Promo"))
    assert (link.code, link.custom_slug) == ("Promo", True)
    for taken in ("Promo", "promo", "PR0MO"):
        with pytest.raises(SlugTaken):
            create_link("https://example.org", "owner-2", generator(), links, NOW, LinkOptions(slug=taken))
    assert list(links.items) == ["Promo"]


def test_a_reserved_slug_is_refused_and_nothing_is_stored():
    links = InMemoryLinks()
    with pytest.raises(InvalidLinkOption) as refused:
        create_link("https://example.com", "owner-1", generator(), links, NOW, LinkOptions(slug="Admin"))
    assert refused.value.field == "slug"
    assert links.items == {}


def test_a_private_link_gets_a_22_character_capability_code():
    links = InMemoryLinks()
    codes = {
        create_link("https://example.com", "o", generator(), links, NOW, LinkOptions(private=True)).code
        for _ in range(50)
    }
    assert len(codes) == 50
    assert all(len(code) == 22 and is_possible_code(code) for code in codes)
    assert all(links.items[code].private for code in codes)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        (LinkOptions(redirect_type=303), "redirect_type"),
        (LinkOptions(expires_at=NOW), "expires_at"),
        (LinkOptions(expires_at=NOW - timedelta(days=1)), "expires_at"),
        (LinkOptions(valid_from=NOW + timedelta(days=2), expires_at=NOW + timedelta(days=1)), "expires_at"),
        (LinkOptions(valid_from=datetime(2026, 2, 1)), "valid_from"),
        (LinkOptions(slug="mine", private=True), "private"),
    ],
)
def test_options_that_cannot_work_are_refused_naming_the_field(options, field):
    links = InMemoryLinks()
    with pytest.raises(InvalidLinkOption) as refused:
        create_link("https://example.com", "owner-1", generator(), links, NOW, options)
    assert refused.value.field == field
    assert links.items == {}


def test_availability_follows_the_validity_window():
    link = Link(
        "c", "https://e.com", "o", NOW, valid_from=NOW + timedelta(hours=1), expires_at=NOW + timedelta(hours=2)
    )
    assert link.availability(NOW) is Availability.NOT_YET
    assert link.availability(NOW + timedelta(hours=1)) is Availability.ACTIVE
    assert link.availability(NOW + timedelta(hours=2) - timedelta(microseconds=1)) is Availability.ACTIVE
    assert link.availability(NOW + timedelta(hours=2)) is Availability.EXPIRED
    assert Link("c", "https://e.com", "o", NOW).availability(NOW + timedelta(days=9999)) is Availability.ACTIVE


def test_create_stores_each_option_as_chosen():
    # Given options that differ from the defaults wherever a Link has a field of that name
    chosen = LinkOptions(
        valid_from=NOW + timedelta(days=1),
        expires_at=NOW + timedelta(days=2),
        redirect_type=308,
        tags=("spring",),
        title="Spring sale",
        max_clicks=10,
        forward_query=False,
        expired_url="https://example.com/over",
        crawlable=True,
        preview=LinkPreview(title="Sale", description="Ten days"),
        utm=Utm(source="news", campaign="spring"),
        domain="go.example",
    )
    # When a link is created with them
    link = create_link("https://example.com", "owner-1", generator(), InMemoryLinks(), NOW, chosen)
    # Then each is stored as it was chosen
    for name in STORED_AS_CHOSEN:
        assert getattr(link, name) == getattr(chosen, name), name
