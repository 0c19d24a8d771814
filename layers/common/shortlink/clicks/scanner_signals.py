"""Email and security scanners that fetch with a browser's User-Agent (Microsoft Safe Links,
Proofpoint, Mimecast, ...): told apart by the network they fetch from and by their timing
(shortlink.clicks.link_bursts). Either signal makes a click that the User-Agent alone calls a
person's `scanner`-likely (shortlink.clicks.bots.click_class). Its false positives: a person on
a corporate VPN or a cloud desktop in one of the listed networks (docs/analytics.md).
"""

import ipaddress
from dataclasses import dataclass

from shortlink.clicks.ip_databases import DatabaseSource
from shortlink.clicks.link_bursts import LinkBursts
from shortlink.clicks.network_database import Network, NetworkDatabase


@dataclass(frozen=True, slots=True)
class ScannerNetworks:
    """The networks taken for scanners': by autonomous system number, or by a fragment of the
    organisation's name as the database writes it (lower-case)."""

    numbers: frozenset[int]
    name_fragments: frozenset[str]

    def includes(self, network: Network) -> bool:
        organisation = network.organisation.lower()
        return network.number in self.numbers or any(fragment in organisation for fragment in self.name_fragments)


@dataclass(frozen=True, slots=True)
class ScannerSignals:
    """What a click is checked against: the networks (None: off) in the network database, and
    the bursts (None: off)."""

    networks: ScannerNetworks | None
    database: DatabaseSource[NetworkDatabase]
    bursts: LinkBursts | None

    def scanner_likely(
        self, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, visitor: str, code: str, at_epoch: float
    ) -> bool:
        """Whether a follow of `code` by `visitor` from `address` looks like a scanner's."""
        burst = self.bursts is not None and self.bursts.is_burst(visitor, code, at_epoch)
        return burst or self._from_scanner_network(address)

    def _from_scanner_network(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        database = self.database.current() if self.networks is not None and address is not None else None
        if database is None or self.networks is None or address is None:
            return False
        network = database.network(address)
        return network is not None and self.networks.includes(network)
