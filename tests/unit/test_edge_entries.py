import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from ada_url import URL
from hypothesis import given
from hypothesis import strategies as st

from shortlink.domains.model import ShortDomains
from shortlink.edge.entries import (
    CRAWLABLE,
    FORWARD_QUERY,
    MAX_KEY_BYTES,
    MAX_VALUE_BYTES,
    PREVIEW,
    edge_entry,
    edge_item,
    edge_key,
)
from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.links.previews import LinkPreview
from shortlink.rules.parsing import parse_rules

NOW = datetime(2026, 12, 6, 12, tzinfo=UTC)
LINK = Link("abc", "https://example.com/a?x=1#top", "owner", NOW)
DOMAINS = ShortDomains.parse("s.example,go.example:3000")


def test_a_plain_link_is_one_small_versioned_array():
    # Given a plain link, When it is encoded, Then its entry holds the origin's Location and status
    assert edge_key(LINK, DOMAINS) == "s.example/abc"
    entry = json.loads(edge_entry(LINK, NOW) or "")
    assert entry == [1, "https://example.com/a?x=1#top", 302, FORWARD_QUERY, None, None]


def test_utm_fields_are_merged_into_the_location_as_the_origin_merges_them():
    link = replace(LINK, utm=Utm(source="news", campaign="spring sale"), forward_query=False, crawlable=True)
    entry = json.loads(edge_entry(link, NOW) or "")
    assert entry[1] == "https://example.com/a?x=1&utm_source=news&utm_campaign=spring+sale#top"
    assert entry[3] == CRAWLABLE


def test_every_link_is_keyed_by_the_host_it_is_followed_on_and_its_code():
    assert edge_key(replace(LINK, domain="go.example"), DOMAINS) == "go.example/abc"
    assert edge_key(LINK, ShortDomains.parse("s.example")) == "s.example/abc"
    # Without Domains the distribution's own host is the only one: the bare code
    assert edge_key(LINK, ShortDomains()) == "abc"


def test_a_link_of_a_domain_the_stack_no_longer_serves_has_no_key():
    gone = replace(LINK, domain="old.example")
    assert edge_key(gone, DOMAINS) is None
    assert edge_item(gone, DOMAINS, NOW) is None
    assert edge_key(replace(LINK, domain="go.example"), ShortDomains()) is None


def test_the_window_is_narrowed_to_whole_milliseconds_on_the_safe_side():
    # valid_from rounds up, expires_at down: the edge never answers a moment the origin refuses
    valid_from = NOW + timedelta(microseconds=1500)
    expires_at = NOW + timedelta(days=1, microseconds=2500)
    entry = json.loads(edge_entry(replace(LINK, valid_from=valid_from, expires_at=expires_at), NOW) or "")
    millis = int(NOW.timestamp() * 1000)
    assert entry[4:] == [millis + 2, millis + 86_400_000 + 2]


@pytest.mark.parametrize(
    "change",
    [
        {"deleted_at": NOW},
        {"password_hash": "scrypt$x"},
        {"max_clicks": 5},
        {"rules": parse_rules({"allow": {"countries": ["DE"]}})},
        {"expires_at": NOW},  # expired at this moment: the origin answers 410 from now on
        {"redirect_type": 303},
        {"url": "https://example.com/" + "a" * 1000},  # a value over 1,024 bytes
    ],
)
def test_what_the_edge_may_not_answer_has_no_entry(change):
    assert edge_entry(replace(LINK, **change), NOW) is None


def test_a_key_over_512_bytes_is_never_written():
    long_host = ".".join(["d" * 63] * 8) + ".example"
    link = replace(LINK, code="c" * 64, domain=long_host)
    assert edge_key(link, ShortDomains(("s.example", long_host))) is None


def test_a_link_with_a_preview_card_is_flagged_for_the_function_to_pass_previewers_on():
    entry = json.loads(edge_entry(replace(LINK, preview=LinkPreview(title="A card")), NOW) or "")
    assert entry[3] == FORWARD_QUERY | PREVIEW


def test_a_link_not_yet_valid_has_an_entry_the_function_checks_against_the_request_time():
    assert edge_entry(replace(LINK, valid_from=NOW + timedelta(hours=1)), NOW) is not None


texts = st.characters(codec="utf-8", exclude_categories=["Cs"])
urls = st.builds(
    lambda host, path, query: URL(f"https://{host}.example/{path}?{query}").href,  # stored as WHATWG serializes it
    st.from_regex(r"[a-z0-9]{1,40}", fullmatch=True),
    st.text(texts, max_size=600),
    st.text(texts, max_size=600),
)
utm_values = st.one_of(st.none(), st.text(texts, min_size=1, max_size=80))
links = st.builds(
    Link,
    code=st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True),
    url=urls,
    owner=st.just("owner"),
    created_at=st.just(NOW),
    domain=st.one_of(st.just(""), st.from_regex(r"([a-z0-9]{1,63}\.){1,7}[a-z]{2,10}", fullmatch=True)),
    redirect_type=st.sampled_from([301, 302, 307, 308]),
    forward_query=st.booleans(),
    crawlable=st.booleans(),
    utm=st.builds(Utm, utm_values, utm_values, utm_values, utm_values, utm_values),
    valid_from=st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))),
    expires_at=st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))),
)


@given(links)
def test_an_entry_never_passes_the_stores_limits_and_reads_back(link):
    domains = ShortDomains((f"s{'a' * 60}.example", *((link.domain,) if link.domain else ())))
    item = edge_item(link, domains, NOW)
    entry = None if item is None else item[1]
    assert item is None or len(item[0].encode()) <= MAX_KEY_BYTES
    if entry is not None:
        assert len(entry.encode()) <= MAX_VALUE_BYTES
        version, location, status, flags, valid_from, expires_at = json.loads(entry)
        assert (version, status) == (1, link.redirect_type)
        assert location.isascii()
        assert bool(flags & FORWARD_QUERY) == link.forward_query
        assert bool(flags & CRAWLABLE) == link.crawlable
        assert expires_at is None or expires_at > NOW.timestamp() * 1000 - 1
        assert (valid_from is None) == (link.valid_from is None)
