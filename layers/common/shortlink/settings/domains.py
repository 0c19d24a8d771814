"""The stack's short domains and their pages (shortlink.domains)."""

import ipaddress
from dataclasses import dataclass

from shortlink.domains.model import ShortDomains
from shortlink.numbers import whole_number
from shortlink.settings.environment import EnvironmentModel, text, variable


@dataclass(frozen=True)
class ShortDomainSettings(EnvironmentModel):
    # The default first (SHORT_DOMAINS; see shortlink.domains).
    short_domains: ShortDomains = variable("SHORT_DOMAINS", ShortDomains(), ShortDomains.parse)
    # Per-domain fallback pages and app-link files (shortlink.domains.settings): a JSON document,
    # inline locally (DOMAIN_SETTINGS), else read from SSM (DOMAIN_SETTINGS_PARAMETER).
    pages: str = text("DOMAIN_SETTINGS")
    pages_parameter: str = text("DOMAIN_SETTINGS_PARAMETER")


def _server(text: str) -> tuple[str, int]:
    """`address[:port]` of one DNS server (an IPv4 address; port 53 by default)."""
    address, _, port = text.strip().partition(":")
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        raise ValueError(f"{text!r} is not an IPv4 address[:port]") from None
    return address, whole_number(port, "port", minimum=1, maximum=65535) if port else 53


@dataclass(frozen=True)
class DnsSettings(EnvironmentModel):
    # The DNS server that verifies workspaces' domains (DNS_RESOLVER, `address[:port]`); unset:
    # the system's resolver (Lambda's: the VPC's or AWS's). Tests and `make dev` name a local one.
    resolver: tuple[str, int] | None = variable("DNS_RESOLVER", None, _server)
