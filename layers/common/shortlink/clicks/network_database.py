"""A click's network from its address: an IP → autonomous system database (DB-IP's ASN Lite,
MaxMind's GeoLite2 ASN; shortlink.clicks.ip_databases), for the scanner signals
(shortlink.clicks.scanner_signals). The network is looked at, never stored."""

import ipaddress
from dataclasses import dataclass
from typing import Any

from shortlink.clicks.ip_databases import MmdbFile


@dataclass(frozen=True, slots=True)
class Network:
    """An autonomous system: its number and the organisation the database names."""

    number: int
    organisation: str


class NetworkDatabase(MmdbFile):
    """Autonomous systems by address."""

    def network(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Network | None:
        """The address's autonomous system; None when the database does not know it."""
        return record_network(self.record(address))


def record_network(record: Any) -> Network | None:
    """The network a record names: GeoLite2 ASN and DB-IP ASN Lite both write
    `autonomous_system_number` and `autonomous_system_organization`."""
    if not isinstance(record, dict):
        return None
    number, organisation = record.get("autonomous_system_number"), record.get("autonomous_system_organization")
    if not isinstance(number, int) or isinstance(number, bool):
        return None
    return Network(number, organisation if isinstance(organisation, str) else "")
