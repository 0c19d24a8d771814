"""Where a webhook may be sent, or any request the server makes to an address someone gave (an
identity provider's discovery document or metadata): a link destination's checks and more, since
the shortener itself makes the request (HTTPS only, no private, loopback, link-local or metadata
address in any spelling)."""

import ipaddress

from shortlink.errors import InvalidUrl
from shortlink.web.urls import DestinationPolicy, validate_destination

# Hosts that name cloud metadata services or private networks whatever they resolve to.
PRIVATE_SUFFIXES = (".internal", ".local", ".localhost", ".home.arpa")


def validate_endpoint_url(
    url: str, policy: DestinationPolicy, allow_loopback: bool = False, what: str = "a webhook"
) -> str:
    """`url` as a link destination is checked, and more: a webhook is a request the shortener
    itself makes, so it must be HTTPS and its host no private, link-local or metadata address
    (checked again on the address DNS gives at each send). `allow_loopback` (the local stack
    only) lets an http or https receiver on 127.0.0.1 through. `what` names the request in messages."""
    from ada_url import URL

    if allow_loopback and (receiver := _loopback_receiver(url)) is not None:
        return receiver
    href = validate_destination(url, policy)
    parsed = URL(href)
    if parsed.protocol != "https:":
        raise InvalidUrl(f"url of {what} must be https")
    name = parsed.hostname.strip("[]").removesuffix(".")
    if name.endswith(PRIVATE_SUFFIXES) or name == "metadata.google.internal":
        raise InvalidUrl(f"url host {name} is a private name")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return href
    if not is_public_address(address):
        raise InvalidUrl(f"url host {name} is not a public address (the request comes from the server)")
    return href


def _loopback_receiver(url: str) -> str | None:
    from ada_url import URL

    try:
        parsed = URL(url)
    except ValueError:
        return None
    if parsed.protocol not in ("http:", "https:"):
        return None
    try:
        loopback = ipaddress.ip_address(parsed.hostname.strip("[]")).is_loopback
    except ValueError:
        return None
    return parsed.href if loopback else None


# IPv6 prefixes whose last 32 bits are an IPv4 address a translator or the host itself reaches:
# NAT64 (RFC 6052), SIIT (RFC 7915's ::ffff:0:0:0/96) and IPv4-compatible addresses (::/96).
IPV4_TAIL_PREFIXES = tuple(ipaddress.ip_network(prefix) for prefix in ("64:ff9b::/96", "::ffff:0:0:0/96", "::/96"))


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, NAT64, SIIT, IPv4-compatible, 6to4,
    Teredo's server and client): each is where a packet may end up, so each is judged."""
    found = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
    if any(address in prefix for prefix in IPV4_TAIL_PREFIXES):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return [embedded for embedded in found if embedded is not None]


def is_public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A globally routable unicast address: not private, loopback, link-local (where the cloud
    metadata service lives: 169.254.169.254, fd00:ec2::254 is private), shared or reserved, in
    any spelling: an IPv6 address that embeds an IPv4 one is public only if that one is too."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # the IPv4 address itself, as a dual-stack socket names it
            return is_public_address(address.ipv4_mapped)
        if not all(is_public_address(embedded) for embedded in embedded_ipv4(address)):
            return False
    return address.is_global and not address.is_multicast
