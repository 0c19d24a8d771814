"""Short domains: keys per domain, the domain a request names, the host a request is for."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.domains.model import ShortDomains, link_key, split_key
from shortlink.errors import InvalidLinkOption
from shortlink.links.keys import CODE_PATTERN, is_possible_code, is_possible_key

DOMAINS = ShortDomains.parse("sho.rt, go.example,127.0.0.1:3000")
codes = st.from_regex(CODE_PATTERN, fullmatch=True)


@given(codes)
def test_no_default_domain_code_equals_another_domains_key(code):
    # The default domain's key is the code itself; another's can never be a code
    assert link_key("", code) == code
    assert not is_possible_code(link_key("go.example", code))
    assert split_key(link_key("go.example", code)) == ("go.example", code)
    assert is_possible_key(link_key("go.example", code))


def test_keys_that_no_link_has_are_not_possible():
    assert not is_possible_key("go.example/")
    assert not is_possible_key("localhost/abc")  # a domain has two labels at least
    assert not is_possible_key("-bad-.example/abc")
    assert not is_possible_key("a/b/c")


def test_a_request_names_a_domain_by_its_host_name():
    assert DOMAINS.domain_named(None) == ""
    assert DOMAINS.domain_named("sho.rt") == ""  # the first is the default
    assert DOMAINS.domain_named("GO.example") == "go.example"
    assert (DOMAINS.domain_named("sho.rt."), DOMAINS.domain_named("go.example.")) == ("", "go.example")  # final dot
    assert DOMAINS.domain_named("127.0.0.1") == "127.0.0.1"
    with pytest.raises(InvalidLinkOption, match=r"^domain must be one of this stack's domains"):
        DOMAINS.domain_named("other.example")
    with pytest.raises(InvalidLinkOption, match="no Domains"):
        ShortDomains().domain_named("sho.rt")


def test_short_urls_name_the_links_domain():
    assert DOMAINS.base_url("", "https://sho.rt") == "https://sho.rt"
    assert DOMAINS.base_url("go.example", "https://sho.rt") == "https://go.example"
    assert DOMAINS.base_url("127.0.0.1", "http://localhost:3000") == "http://127.0.0.1:3000"
    assert (DOMAINS.public_name(""), DOMAINS.public_name("go.example")) == ("sho.rt", "go.example")
    assert ShortDomains().public_name("") is None


def test_hosts_map_to_their_domains_keys_and_hosts_that_name_no_domain_to_none():
    assert DOMAINS.key_prefix_of_host("sho.rt", own_host=False) == ""
    assert DOMAINS.key_prefix_of_host("GO.EXAMPLE:443", own_host=False) == "go.example/"
    assert DOMAINS.key_prefix_of_host("abc.execute-api.us-east-1.amazonaws.com", own_host=True) == ""
    # Any other host name may be a workspace's domain: its links' keys decide, an unknown one misses
    assert DOMAINS.key_prefix_of_host("Links.Acme.example", own_host=False) == "links.acme.example/"
    assert DOMAINS.key_prefix_of_host("links.acme.example.:443", own_host=False) == "links.acme.example/"
    for not_a_name in ("[::1]", "under_score.example", "a/b.example", "x" * 250 + ".example"):
        assert DOMAINS.key_prefix_of_host(not_a_name, own_host=False) is None
    # Without Domains, every host serves the one domain, as before
    assert ShortDomains().key_prefix_of_host("anything.example", own_host=False) == ""


def test_a_domains_setting_that_is_not_host_names_is_refused():
    with pytest.raises(ValueError, match="not a host name"):
        ShortDomains.parse("sho.rt,https://go.example")
    with pytest.raises(ValueError, match="not a host name"):
        ShortDomains.parse("intranet")
