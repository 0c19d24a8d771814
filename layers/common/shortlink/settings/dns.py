"""The DNS server that verifies workspaces' domains (shortlink.domains): apart from the short
domains' settings, which the redirect reads on every cold start, as it never reads this."""

import ipaddress
from dataclasses import dataclass

from shortlink.numbers import whole_number
from shortlink.settings.environment import EnvironmentModel, variable


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
