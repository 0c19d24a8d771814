"""A workspace's domain name as the product accepts it: the host a browser reads from what was
typed (IDNA to punycode, lower case, no final dot, through the destination checks' parser), a
domain name DNS can hold, never an address, a port, a path, a loopback name or one of the
stack's own domains (or a name under one)."""

import ipaddress
from collections.abc import Iterable

from shortlink.errors import ConfigurationError, InvalidLinkOption
from shortlink.web.urls import host_key, is_valid_domain_name

# The verification record `_shortlink.<domain>` must fit DNS's 253 characters.
RECORD_LABEL = "_shortlink"
MAX_DOMAIN_CHARS = 253 - len(RECORD_LABEL) - 1
MAX_TYPED_CHARS = 1024  # longer input is refused before it is parsed
_NOT_IN_A_HOST = frozenset("/\\?#@%")


def _refused(message: str) -> InvalidLinkOption:
    return InvalidLinkOption("domain", f"domain: {message}")


def workspace_domain_name(typed: str, reserved: Iterable[str]) -> str:
    """The domain `typed` names, canonical (punycode, lower case, no final dot); InvalidLinkOption
    naming the rule it breaks. `reserved`: the stack's own host names, which no workspace may
    claim, nor any name under them."""
    text = typed.strip()
    if not text:
        raise _refused("give a host name, such as links.example.com")
    if len(text) > MAX_TYPED_CHARS or any(
        char in _NOT_IN_A_HOST or char.isspace() or not char.isprintable() for char in text
    ):
        raise _refused("a host name only, without a scheme, path, user or spaces (such as links.example.com)")
    if text.startswith("[") or text.count(":") > 1:
        raise _refused("an IP address cannot be a short domain: give a host name")
    if ":" in text:
        raise _refused("a host name without a port (short links are served on 443)")
    try:
        name = host_key(text)
    except ConfigurationError:
        raise _refused(f"{text!r} is not a host name browsers can read") from None
    try:
        ipaddress.ip_address(name)
    except ValueError:
        pass
    else:
        raise _refused(f"an IP address ({name}) cannot be a short domain: give a host name")
    if len(name.split(".")) < 2:
        raise _refused("a full domain name of two labels or more, such as links.example.com")
    if len(name) > MAX_DOMAIN_CHARS:
        raise _refused(f"at most {MAX_DOMAIN_CHARS} characters, so that {RECORD_LABEL}.<domain> fits in DNS")
    if not is_valid_domain_name(name):
        raise _refused(f"{name} is not a valid domain name")
    if name == "localhost" or name.endswith(".localhost"):
        raise _refused(f"{name} is a loopback name")
    for own in reserved:
        if name == own or name.endswith("." + own):
            raise _refused(f"{name} is this stack's own domain or under one: no workspace can claim it")
    return name


def record_name(domain: str) -> str:
    """Where the domain's verification token is published, as a TXT record."""
    return f"{RECORD_LABEL}.{domain}"
