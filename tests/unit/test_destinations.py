"""Where a follow goes: the destination with the link's UTM fields and the visitor's query merged
in, in the documented order and encoding, never with another host or path (issue 16 items 1, 7)."""

import pytest
from ada_url import URL
from hypothesis import given
from hypothesis import strategies as st

from shortlink.errors import DestinationTooLong
from shortlink.links.destinations import Utm, conflicting_utm, destination
from shortlink.web.urls import MAX_URL_LENGTH


def test_a_follow_without_query_or_utm_goes_to_the_saved_url_unchanged():
    assert destination("https://example.com/p?b=1&a", None, "") == "https://example.com/p?b=1&a"


def test_the_order_is_own_query_then_utm_then_the_visitors_and_the_link_wins_a_conflict():
    utm = Utm(source="newsletter", campaign="spring")
    merged = destination("https://example.com/shop?lang=en", utm, "ref=tw&utm_source=x&lang=de&ref=fb")
    assert merged == "https://example.com/shop?lang=en&utm_source=newsletter&utm_campaign=spring&ref=tw&ref=fb"


def test_utm_fields_come_in_their_documented_order_and_only_those_set():
    utm = Utm(content="hero", term="shoes", campaign="c", medium="email", source="s")
    assert destination("https://example.com/", utm, "") == (
        "https://example.com/?utm_source=s&utm_medium=email&utm_campaign=c&utm_term=shoes&utm_content=hero"
    )
    assert Utm(medium="email").pairs() == [("utm_medium", "email")]


def test_the_fragment_stays_at_the_end():
    assert destination("https://example.com/p#top", None, "a=1") == "https://example.com/p?a=1#top"
    assert destination("https://example.com/p?x=1#top", None, "a=1") == "https://example.com/p?x=1&a=1#top"


@pytest.mark.parametrize(
    ("visitor", "forwarded"),
    [
        ("q=a+b", "q=a+b"),  # a form's space
        ("q=a%20b", "q=a+b"),
        ("q=%7E*-._", "q=%7E*-._"),  # WHATWG form encoding: ~ is escaped, *-._ are not
        ("q=~", "q=%7E"),
        ("q=%C3%BC&r=ü", "q=%C3%BC&r=%C3%BC"),
        ("flag", "flag="),
        ("q=%zz", "q=%25zz"),  # a stray % is kept as text
        ("a=1&&b=2", "a=1&b=2"),
    ],
)
def test_visitor_parameters_are_read_and_written_as_whatwg_form_data(visitor, forwarded):
    assert destination("https://example.com/", None, visitor) == f"https://example.com/?{forwarded}"


@given(st.text(max_size=60))
def test_no_visitor_query_reaches_another_host_or_path(visitor):
    saved = URL("https://example.com/a/b?x=1#f")
    merged = URL(destination(saved.href, Utm(source="s"), visitor))
    assert (merged.protocol, merged.host, merged.pathname, merged.hash) == ("https:", "example.com", "/a/b", "#f")
    assert merged.search.startswith("?x=1&utm_source=s")


def test_a_destination_made_too_long_by_the_visitor_is_refused():
    with pytest.raises(DestinationTooLong):
        destination("https://example.com/", None, "q=" + "a" * MAX_URL_LENGTH)


def test_a_utm_field_the_url_already_sets_is_named():
    assert conflicting_utm("https://example.com/?utm_medium=x", Utm(source="s", medium="m")) == "utm_medium"
    assert conflicting_utm("https://example.com/?medium=x", Utm(medium="m")) is None


# Percent-escapes that are not UTF-8: a lone byte, cut-off sequences, an encoded surrogate.
NOT_UTF8_QUERIES = ["a=%ff", "%ff=1", "a=%c3", "a=%80", "a=%e2%82", "a=%ed%a0%80", "utm_campaign=%ff", "a=%FF%fe+%"]


def _query_bytes(query: str) -> list[bytes]:
    from urllib.parse import unquote_to_bytes

    return [unquote_to_bytes(part.replace("+", " ")) for part in query.replace("&", "=").split("=")]


@pytest.mark.parametrize("query", NOT_UTF8_QUERIES)
def test_a_visitors_query_that_is_not_utf8_is_forwarded_with_its_bytes(query):
    merged = destination("https://example.com/p?x=1#top", None, query)
    assert merged.startswith("https://example.com/p?x=1&")
    assert merged.endswith("#top")
    forwarded = merged.removeprefix("https://example.com/p?x=1&").removesuffix("#top")
    assert _query_bytes(forwarded) == _query_bytes(query)


def test_the_link_still_wins_a_conflict_with_a_query_that_is_not_utf8():
    merged = destination("https://example.com/?lang=en", Utm(campaign="spring"), "utm_campaign=%ff&lang=%fe&ref=%e2")
    assert merged == "https://example.com/?lang=en&utm_campaign=spring&ref=%E2"


def test_a_saved_destination_whose_query_is_not_utf8_takes_utm_and_a_visitors_query():
    assert (
        destination("https://example.com/?q=%ff", Utm(source="s"), "r=1")
        == "https://example.com/?q=%ff&utm_source=s&r=1"
    )
    assert conflicting_utm("https://example.com/?q=%ff&utm_source=x", Utm(source="s")) == "utm_source"


@given(st.binary(max_size=24), st.binary(min_size=1, max_size=24))
def test_any_bytes_a_visitor_sends_are_forwarded_unchanged(name, value):
    from urllib.parse import quote_plus

    query = f"{quote_plus(name)}={quote_plus(value)}"
    merged = destination("https://example.com/", None, query)
    assert _query_bytes(merged.removeprefix("https://example.com/?")) == [name, value]
