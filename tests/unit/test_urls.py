import pytest

from shortlink.errors import InvalidUrl
from shortlink.urls import MAX_URL_LENGTH, DestinationPolicy, validate_destination


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com",
        "http://example.com/path?q=1#frag",
        "HTTPS://EXAMPLE.COM/",
        "https://[2001:db8::1]:8443/x",
        "https://xn--bcher-kva.example/",
        "https://example.com/" + "a" * (MAX_URL_LENGTH - len("https://example.com/")),
    ],
)
def test_absolute_http_urls_are_accepted(url):
    assert validate_destination(url) == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://example.com/file", "absolute http or https"),
        ("javascript:alert(1)", "absolute http or https"),
        ("/relative/path", "absolute http or https"),
        ("example.com", "absolute http or https"),
        ("https://", "must name a host"),
        ("https:///path", "must name a host"),
        ("https://user:pass@example.com", "credentials"),
        ("https://user@example.com", "credentials"),
        ("https://exa mple.com", "whitespace"),
        ("https://example.com/\x00", "control"),
        ("https://example.com:99999/", "malformed"),
        ("https://example.com/" + "a" * MAX_URL_LENGTH, "longer than 2048"),
    ],
)
def test_bad_destinations_are_refused_with_the_reason(url, problem):
    with pytest.raises(InvalidUrl, match=problem):
        validate_destination(url)


def test_internationalised_hosts_are_stored_in_punycode():
    assert validate_destination("https://Bücher.example:8080/ü?q=ö#f") == "https://xn--bcher-kva.example:8080/ü?q=ö#f"
    assert validate_destination("https://bücher.example./") == "https://xn--bcher-kva.example/"


POLICY = DestinationPolicy(
    own_hosts=frozenset({"sho.rt"}), blocked_domains=frozenset({"bad.example", "xn--bcher-kva.example"})
)


@pytest.mark.parametrize("url", ["https://sho.rt/abc", "http://SHO.RT/", "https://sho.rt./x", "https://sho.rt:443/x"])
def test_links_to_this_shortener_are_refused(url):
    with pytest.raises(InvalidUrl, match="redirect loop"):
        validate_destination(url, POLICY)


@pytest.mark.parametrize(
    "url", ["https://bad.example/x", "https://www.bad.example/", "https://BAD.example./", "https://bücher.example/"]
)
def test_blocked_domains_and_their_subdomains_are_refused(url):
    with pytest.raises(InvalidUrl, match="blocklist"):
        validate_destination(url, POLICY)


@pytest.mark.parametrize("url", ["https://notbad.example/", "https://bad.example.com/", "https://go.sho.rt.example/"])
def test_other_domains_pass_the_policy(url):
    assert validate_destination(url, POLICY) == url
