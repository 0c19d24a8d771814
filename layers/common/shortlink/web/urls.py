"""Destination URLs, read as browsers read them.

A URL is parsed by the WHATWG URL standard through ada-url (the parser of Node.js), and what we
store and send in `Location` is that parser's serialization (its href): the host we check is the
host a browser goes to, whatever the spelling (`\\` for `/`, `127.1`, `%31`, Unicode, case).
ada-url is imported on the first check, not with this module: the redirect imports this module
(through shortlink.links) but never checks a URL.
"""

import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shortlink.errors import ConfigurationError, InvalidUrl

if TYPE_CHECKING:
    from ada_url import URL

MAX_URL_LENGTH = 2048
ALLOWED_SCHEMES = ("http", "https")
MAX_DOMAIN_LENGTH = 253
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_WHITESPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")  # \s: what str.isspace() calls space
# A label of a valid domain in the standard's strict sense (UTS 46 with UseSTD3ASCIIRules and
# VerifyDnsLength): 1-63 letters, digits and inner hyphens, as the ASCII form spells it.
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
LOOP = "url points back at this shortener (a redirect loop)"


@dataclass(frozen=True)
class DestinationPolicy:
    """Hosts a link may not point to: this shortener's own (a link to a short link loops) and the
    operator's blocklist (a blocked domain covers its subdomains). Both hold hosts in their
    canonical form (`host_key`); `of` builds a policy from any spelling. `workspace_domain` says
    whether a host is a workspace's verified domain, which this shortener serves too (a loop):
    it reads the claims, so it is asked last, of a host every other check let through."""

    own_hosts: frozenset[str] = frozenset()
    blocked_domains: frozenset[str] = frozenset()
    workspace_domain: Callable[[str], bool] | None = None

    @classmethod
    def of(cls, own_hosts: Iterable[str], blocked_domains: Iterable[str]) -> "DestinationPolicy":
        return cls(frozenset(map(host_key, own_hosts)), frozenset(map(host_key, blocked_domains)))


def host_key(host: str) -> str:
    """The canonical form of a host (a port is ignored): the one a browser connects to, lower
    case, punycode, dotted-decimal IPv4 (also for an IPv4-mapped IPv6 address), no final dot.
    Raises ConfigurationError for a host no browser reads (own hosts and the blocklist are
    configuration)."""
    try:
        parsed = _parse(f"http://{host}/")
    except ValueError:
        raise ConfigurationError(f"{host!r} is not a host name or address a browser can read") from None
    return _key(parsed)


def validate_destination(url: str, policy: DestinationPolicy | None = None) -> str:
    """`url` as browsers read it (its WHATWG serialization: the form we store and redirect to), if
    it is an absolute http(s) URL with a valid host that the policy allows; else InvalidUrl
    naming the problem."""
    if len(url) > MAX_URL_LENGTH:
        raise InvalidUrl(f"url is longer than {MAX_URL_LENGTH} characters")
    if _WHITESPACE_OR_CONTROL.search(url):
        raise InvalidUrl("url must not contain whitespace or control characters")
    scheme = _SCHEME.match(url)
    if scheme is None or scheme.group(1).lower() not in ALLOWED_SCHEMES:
        raise InvalidUrl("url must be an absolute http or https URL")
    try:
        parsed = _parse(url)
    except ValueError:
        raise InvalidUrl(_why_unreadable(url[scheme.end() :])) from None
    if len(parsed.href) > MAX_URL_LENGTH:
        raise InvalidUrl(f"url is longer than {MAX_URL_LENGTH} characters once percent-encoded")
    if parsed.username or parsed.password:
        raise InvalidUrl("url must not embed credentials (user:password@)")
    _check_host(parsed)
    _check_policy(_key(parsed), policy or DestinationPolicy())
    return parsed.href


def refuse_loop(url: str, policy: DestinationPolicy) -> None:
    """InvalidUrl if `url`, a destination as stored (checked when written), points back at this
    shortener: one of its hosts or a workspace's verified domain (one that was verified since)."""
    try:
        host = _key(_parse(url))
    except ValueError:
        return  # stored before the checks read URLs as browsers do: nothing it could loop through
    if host in policy.own_hosts:
        raise InvalidUrl(LOOP)
    _check_workspace_domain(host, policy)


def _parse(url: str) -> "URL":
    from ada_url import URL

    return URL(url)


def _why_unreadable(after_scheme: str) -> str:
    rest = after_scheme.lstrip("/\\")
    if not rest or rest[0] in "?#":
        return "url must name a host"
    return "url is malformed: browsers cannot read its host or port"


def _key(parsed: "URL") -> str:
    from ada_url import HostType

    if parsed.host_type == HostType.IPV6:
        address = ipaddress.IPv6Address(parsed.hostname.strip("[]"))
        return str(address.ipv4_mapped or address)
    return parsed.hostname.removesuffix(".")


def _check_host(parsed: "URL") -> None:
    """A domain must be valid in the standard's strict sense, which browsers do not enforce:
    `-example.com`, `xn--` or `a_b.com` parse, but name nothing DNS can register."""
    from ada_url import HostType

    if parsed.host_type != HostType.DEFAULT:
        return  # an IPv4 or IPv6 address, valid once parsed
    name = parsed.hostname.removesuffix(".")
    if len(name.split(".")) < 2:
        raise InvalidUrl("url host must be a full domain name (such as example.com) or an IP address")
    if not is_valid_domain_name(name):
        raise InvalidUrl(f"url host {parsed.hostname} is not a valid domain name")


def is_valid_domain_name(name: str) -> bool:
    """Whether `name` (a parsed host: lower case, ASCII, no final dot) is a domain DNS can hold:
    at most 253 characters of valid labels (a workspace's domain is checked by it too)."""
    return len(name) <= MAX_DOMAIN_LENGTH and all(map(_valid_label, name.split(".")))


def _valid_label(label: str) -> bool:
    if not _LABEL.fullmatch(label):
        return False
    if not label.startswith("xn--"):
        return label[2:4] != "--"  # reserved for encodings such as punycode (UTS 46 CheckHyphens)
    # An A-label must be the punycode of a valid Unicode label: ada returns one it cannot decode
    # unchanged, and one that is not the standard's encoding of its decoding does not round-trip.
    from ada_url import idna_to_ascii, idna_to_unicode

    decoded = idna_to_unicode(label)
    hyphens_ok = not (decoded.startswith("-") or decoded.endswith("-") or decoded[2:4] == "--")
    return not decoded.isascii() and hyphens_ok and idna_to_ascii(decoded) == label.encode()


def _check_policy(host: str, policy: DestinationPolicy) -> None:
    if host in policy.own_hosts:
        raise InvalidUrl(LOOP)
    if _is_loopback(host):
        raise InvalidUrl("url points at the visitor's own machine (a loopback address)")
    if any(host == domain or host.endswith("." + domain) for domain in policy.blocked_domains):
        raise InvalidUrl(f"url host {host} is on the blocklist")
    _check_workspace_domain(host, policy)


def _check_workspace_domain(host: str, policy: DestinationPolicy) -> None:
    if policy.workspace_domain is not None and policy.workspace_domain(host):
        raise InvalidUrl(f"{LOOP}: {host} is a workspace's short domain, which it serves")


def _is_loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or host.endswith(".localhost")  # always loopback (RFC 6761)
    return address.is_loopback or address.is_unspecified
