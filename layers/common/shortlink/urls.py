"""What a destination URL must look like before we agree to redirect to it."""

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from shortlink.errors import InvalidUrl

MAX_URL_LENGTH = 2048
ALLOWED_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class DestinationPolicy:
    """Hosts a link may not point to: this shortener's own (a link to a short link could loop)
    and the operator's blocklist (a blocked domain covers its subdomains). ASCII, lower case."""

    own_hosts: frozenset[str] = frozenset()
    blocked_domains: frozenset[str] = frozenset()


def ascii_host(hostname: str) -> str:
    """The host as DNS sees it: internationalised labels in punycode, lower case, no final dot."""
    try:
        return hostname.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise InvalidUrl("url host is not a valid domain name") from None


def _within(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def validate_destination(url: str, policy: DestinationPolicy | None = None) -> str:
    """`url` with its host in punycode, if it is an absolute http(s) URL we may redirect to;
    else raise InvalidUrl. Hosts are compared in their punycode form, so a look-alike Unicode
    spelling of a blocked or own domain is caught."""
    if len(url) > MAX_URL_LENGTH:
        raise InvalidUrl(f"url is longer than {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise InvalidUrl("url must not contain whitespace or control characters")
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as error:
        raise InvalidUrl(f"url is malformed: {error}") from None
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise InvalidUrl("url must be an absolute http or https URL")
    if not hostname:
        raise InvalidUrl("url must name a host")
    if parts.username is not None or parts.password is not None:
        raise InvalidUrl("url must not embed credentials (user:password@)")
    host = ascii_host(hostname)
    policy = policy or DestinationPolicy()
    if host in policy.own_hosts:
        raise InvalidUrl("url points back at this shortener (a redirect loop)")
    if any(_within(host, domain) for domain in policy.blocked_domains):
        raise InvalidUrl(f"url host {host} is on the blocklist")
    if host == hostname or ":" in hostname:  # unchanged, or an IPv6 literal
        return url
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
