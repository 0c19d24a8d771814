"""TXT records read through dnspython (imported with this module: only a domain's verification
reads DNS). The resolver is the system's, or the servers the settings name (a local
authoritative server in tests and on `make dev`)."""

import dns.exception
import dns.resolver

from shortlink.domains.errors import DnsUnavailable
from shortlink.settings.dns import DnsSettings

LIFETIME_SECONDS = 4.0  # all tries of one lookup together


class DnsTxtRecords:
    """TxtRecords through a dnspython resolver."""

    def __init__(self, settings: DnsSettings) -> None:
        if settings.resolver is None:
            self._resolver = dns.resolver.Resolver()
        else:
            self._resolver = dns.resolver.Resolver(configure=False)
            address, port = settings.resolver
            self._resolver.nameservers = [address]
            self._resolver.port = port
        self._resolver.lifetime = LIFETIME_SECONDS
        self._resolver.cache = None  # a verification asks DNS again, never a kept answer

    def texts_at(self, name: str) -> list[str]:
        try:
            answer = self._resolver.resolve(name, "TXT", search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        except dns.exception.DNSException as error:  # no server answered, or none in time
            raise DnsUnavailable(f"DNS did not answer for {name}: {type(error).__name__}") from None
        # A record of several strings is one value (as SPF and DKIM records are read).
        return [b"".join(record.strings).decode("utf-8", "replace") for record in answer]
