"""Destination URLs are checked as browsers read them (WHATWG), and stored in that reading."""

import ipaddress
from collections.abc import Callable

import pytest
from ada_url import URL
from hypothesis import example, given
from hypothesis import strategies as st

from shortlink.errors import ConfigurationError, InvalidUrl
from shortlink.web.urls import MAX_URL_LENGTH, DestinationPolicy, host_key, validate_destination


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("https://example.com", "https://example.com/"),
        ("http://example.com/path?q=1#frag", "http://example.com/path?q=1#frag"),
        ("HTTPS://EXAMPLE.COM/", "https://example.com/"),
        ("https://example.com:443/a/../b", "https://example.com/b"),
        ("https://[2001:db8::1]:8443/x", "https://[2001:db8::1]:8443/x"),
        ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"),
        ("https://Bücher.example:8080/ü?q=ö#f", "https://xn--bcher-kva.example:8080/%C3%BC?q=%C3%B6#f"),
        ("https://☃.net/", "https://xn--n3h.net/"),
        ("https://example.com./", "https://example.com./"),  # the final dot is kept, as browsers keep it
        ("https://example.com\\path\\to", "https://example.com/path/to"),  # a backslash is a slash
        ("https:example.com", "https://example.com/"),
        ("https://ex%41mple.com/", "https://example.com/"),
        ("https://example.com/" + "a" * (MAX_URL_LENGTH - 20), "https://example.com/" + "a" * (MAX_URL_LENGTH - 20)),
    ],
)
def test_what_is_stored_is_the_browsers_reading_of_the_url(url, stored):
    assert validate_destination(url) == stored
    assert URL(url).href == stored


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://example.com/file", "absolute http or https"),
        ("javascript:alert(1)", "absolute http or https"),
        ("/relative/path", "absolute http or https"),
        ("example.com", "absolute http or https"),
        ("https://", "must name a host"),
        ("https://?q", "must name a host"),
        ("https://user:pass@example.com", "credentials"),
        ("https://user@example.com", "credentials"),
        ("https://exa mple.com", "whitespace"),
        ("https://example.com/\x00", "control"),
        ("https://example.com:99999/", "malformed"),
        ("https://example.com/" + "a" * MAX_URL_LENGTH, "longer than 2048"),
        ("https://example.com/" + "ü" * 1000, "once percent-encoded"),
    ],
)
def test_bad_destinations_are_refused_with_the_reason(url, problem):
    with pytest.raises(InvalidUrl, match=problem):
        validate_destination(url)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://⒈.com/", "malformed"),  # maps to "1..com": an empty label
        ("https://exa%20mple.com", "malformed"),
        ("https://[v1.fe]/", "malformed"),
        ("https://[::1::2]/", "malformed"),
        ("https://1.2.3.256/", "malformed"),
        ("https://a..b.com/", "not a valid domain"),
        ("https://-example.com/", "not a valid domain"),
        ("https://example-.com/", "not a valid domain"),
        ("https://ab--cd.com/", "not a valid domain"),  # hyphens 3-4 are reserved for encodings
        ("https://xn--.com/", "not a valid domain"),  # punycode of nothing
        ("https://xn--zz-.com/", "not a valid domain"),
        ("https://xn--abc-.com/", "not a valid domain"),  # decodes to ASCII: not an A-label
        ("https://xn---bcher-kva.com/", "not a valid domain"),  # decodes to "-bcêher"
        ("https://a_b.example/", "not a valid domain"),
        ("https://" + "a" * 64 + ".com/", "not a valid domain"),
        ("https://" + "a." * 127 + "com/", "not a valid domain"),  # 257 characters
        ("https://xn--/", "full domain name"),
        ("https://intranet/", "full domain name"),
        ("https:///path", "full domain name"),  # browsers read host "path"
    ],
)
def test_hosts_that_are_not_valid_hosts_are_refused(url, problem):
    with pytest.raises(InvalidUrl, match=problem):
        validate_destination(url)


# URLs assembled from the pieces that browsers read in surprising ways.
TRICKY = st.sampled_from(
    ["example", ".com", "a", "0", "1", "x", "-", ".", "%", "%2e", "%41", "\\", "/", ":", "@", "[", "]", "?", "#",
     "ü", "ß", "⒈", "。", "\uff45", "xn--", "0x", "255", "::", "ffff", "\u200d", "\u0301", "%00", " "]
)  # fmt: skip
SCHEMES = st.sampled_from(["https://", "http://", "HTTP://", "https:", "https:\\\\", "https:///"])
LABELS = st.sampled_from(["example", "com", "a", "ü", "xn--bcher-kva", "xn--", "0x7f", "1", "-a", "%2e", "\uff45", "_"])
URLS = st.one_of(
    st.builds(lambda scheme, parts: scheme + "".join(parts), SCHEMES, st.lists(TRICKY, max_size=12)),
    st.builds(
        lambda scheme, labels, dot, rest: scheme + dot.join(labels) + "".join(rest),
        SCHEMES,
        st.lists(LABELS, min_size=1, max_size=4),
        st.sampled_from([".", "。", "%2e"]),
        st.lists(TRICKY, max_size=6),
    ),
)


@given(URLS)
@example("https://sho.rt\\loopme")
@example("https://evil.com\\.example.org/x")
def test_an_accepted_url_is_stored_as_browsers_read_it_and_re_reads_to_itself(url):
    # Given any spelling; When it is checked; Then it is refused with InvalidUrl (never
    # another error), or what is stored is the parser's href, which reads back to itself.
    try:
        stored = validate_destination(url)
    except InvalidUrl:
        return
    assert stored == URL(url).href
    assert URL(stored).href == stored
    assert validate_destination(stored) == stored
    assert stored.isascii()  # fit for a Location header


def ipv4_spellings(address: str) -> list[str]:
    """Ways browsers accept to write an IPv4 address (WHATWG IPv4 parser)."""
    a, b, c, d = (int(part) for part in address.split("."))
    number = int(ipaddress.IPv4Address(address))
    mapped = ipaddress.IPv6Address(f"::ffff:{address}")
    return [
        address,
        str(number),
        hex(number),
        "0" + oct(number)[2:],
        f"{a}.{(b << 16) | (c << 8) | d}",
        f"{a}.{b}.{(c << 8) | d}",
        f"{hex(a)}.{b}.{c}.{d}",
        f"0{oct(a)[2:]}.{b}.{c}.{d}",
        f"{a}.{b}.{c}.{d}.",
        "".join(f"%{ord(ch):02X}" for ch in address),
        f"[::ffff:{address}]",
        f"[{mapped.exploded}]",
        f"[{mapped.compressed}]",
        f"[0:0:0:0:0:FFFF:{address}]",
    ]


OWN_IP = "203.0.113.7"  # not a loopback address, so only the own-host check can refuse it
POLICY = DestinationPolicy.of(own_hosts={"sho.rt", f"{OWN_IP}:3000", "bücher.example"}, blocked_domains={"evil.com"})


@pytest.mark.parametrize("spelling", ipv4_spellings(OWN_IP))
@pytest.mark.parametrize("form", ["http://{}:3000/", "https://{}/x", "http://{}\\abc", "http:{}/"])
def test_every_spelling_of_an_own_address_is_refused(spelling, form):
    assert URL(form.format(spelling)).hostname in (OWN_IP, "[::ffff:cb00:7107]")  # the spelling is one
    with pytest.raises(InvalidUrl, match="redirect loop"):
        validate_destination(form.format(spelling), POLICY)


@given(st.lists(st.sampled_from(["dec", "hex", "oct"]), min_size=4, max_size=4))
def test_an_own_address_in_any_radix_per_part_is_refused(radixes):
    parts = [int(part) for part in OWN_IP.split(".")]
    spelled: dict[str, Callable[[int], str]] = {"dec": str, "hex": hex, "oct": lambda n: "0" + oct(n)[2:]}
    host = ".".join(spelled[radix](part) for radix, part in zip(radixes, parts, strict=True))
    with pytest.raises(InvalidUrl, match="redirect loop"):
        validate_destination(f"http://{host}:3000/", POLICY)


@pytest.mark.parametrize(
    "url",
    [
        "https://sho.rt/abc",
        "http://SHO.RT/",
        "https://sho.rt./x",
        "https://sho.rt:443/x",
        "https://sho.rt\\loopme",
        "https://sho.rt\\.example.org/x",
        "https:sho.rt/x",
        "https://@sho.rt/",
        "https://%73%68%6F.rt/",
        "https://sho%2Ert/",
        "https://\uff53\uff48\uff4f.\uff52\uff54/",  # full-width letters map to ASCII
        "https://sho。rt/",  # an ideographic full stop is a dot
        "https://xn--bcher-kva.example/",
        "https://BÜCHER.example./",
    ],
)
def test_every_spelling_of_an_own_domain_is_refused(url):
    with pytest.raises(InvalidUrl, match="redirect loop"):
        validate_destination(url, POLICY)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://127.1/",
        "http://2130706433/",
        "http://127.255.255.254:8080/",
        "http://0.0.0.0/",
        "http://0/",
        "http://[::1]/",
        "http://[::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://app.localhost/",
        "http://LOCALHOST.localhost./",
    ],
)
def test_loopback_destinations_are_refused_whatever_the_own_hosts(url):
    with pytest.raises(InvalidUrl, match="own machine"):
        validate_destination(url, DestinationPolicy())


@pytest.mark.parametrize(
    "url",
    ["http://10.0.0.1/", "http://192.168.1.1/", "http://172.16.0.1/", "http://[fd00::1]/", "http://169.254.169.254/"],
)
def test_private_addresses_may_be_linked_to(url):
    # A short link is followed by the visitor's browser, never fetched by us: not a server-side request.
    assert validate_destination(url, POLICY) == url


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.com/",
        "https://evil.com\\.example.org/x",  # browsers go to evil.com
        "https://www.evil.com/",
        "https://EVIL.com./",
        "https://%65vil.com/",
        "https://\uff45\uff56\uff49\uff4c.com/",  # full-width letters
        "https://evil。com/",
        "https:evil.com",
    ],
)
def test_the_blocklist_is_matched_on_the_host_browsers_read(url):
    with pytest.raises(InvalidUrl, match=r"url host (www\.)?evil\.com is on the blocklist"):
        validate_destination(url, POLICY)


@pytest.mark.parametrize(
    ("entry", "url"),
    [
        ("EVIL.com.", "https://evil.com/"),
        ("bücher.example", "https://xn--bcher-kva.example/"),
        ("xn--bcher-kva.example", "https://BÜCHER.example/"),
        ("198.51.100.1", "http://3325256705/"),
        ("198.51.100.1", "http://[::ffff:c633:6401]/"),
        ("0xc6.51.100.1", "http://198.51.100.1/"),
    ],
)
def test_blocklist_entries_may_be_written_in_any_spelling(entry, url):
    with pytest.raises(InvalidUrl, match="blocklist"):
        validate_destination(url, DestinationPolicy.of(own_hosts=(), blocked_domains={entry}))


@pytest.mark.parametrize(
    "url", ["https://notevil.com/", "https://evil.com.example/", "https://go.sho.rt.example/", "https://203.0.113.8/"]
)
def test_other_hosts_pass_the_policy(url):
    assert validate_destination(url, POLICY) == url


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("Sho.RT.", "sho.rt"),
        ("sho.rt:3000", "sho.rt"),
        ("bücher.example", "xn--bcher-kva.example"),
        ("0x7f.1", "127.0.0.1"),
        ("[::FFFF:127.0.0.1]", "127.0.0.1"),
        ("[2001:DB8:0::1]", "2001:db8::1"),
    ],
)
def test_host_keys_are_the_canonical_form_of_a_host(host, key):
    assert host_key(host) == key


@pytest.mark.parametrize("host", ["exa mple.com", "[v1.fe]", "1.2.3.256", "⒈.com"])
def test_a_configured_host_no_browser_reads_fails_loudly(host):
    with pytest.raises(ConfigurationError, match="not a host"):
        DestinationPolicy.of(own_hosts=(), blocked_domains={host})
