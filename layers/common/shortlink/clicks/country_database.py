"""A click's country from its address, without the edge: an IP → country database in the
MaxMind DB format (`.mmdb`: DB-IP's IP to Country Lite, MaxMind's GeoLite2 Country, ...) read in
the redirect's environment after its response. The address is looked up and forgotten, never
stored. The reader (`maxminddb`) is imported only when a database is configured.
"""

import ipaddress
from typing import Any

from shortlink.rules.countries import COUNTRY_CODES, UNKNOWN_COUNTRY


class CountryDatabase:
    """Countries by address from one `.mmdb` file (opened whole into memory)."""

    def __init__(self, path: str) -> None:
        import maxminddb

        self._reader = maxminddb.open_database(path, maxminddb.MODE_MEMORY)

    def country(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
        """The ISO 3166 code of the address's country; XX when the database does not know it."""
        try:
            record: Any = self._reader.get(address)
        except ValueError:  # an IPv6 address in an IPv4-only database
            return UNKNOWN_COUNTRY
        return record_country(record)


def record_country(record: Any) -> str:
    """The country a database record names: GeoLite2 and DB-IP write `country.iso_code`, others
    a flat `country_code`; XX for anything else."""
    if not isinstance(record, dict):
        return UNKNOWN_COUNTRY
    country = record.get("country")
    code = country.get("iso_code") if isinstance(country, dict) else record.get("country_code")
    code = code.upper() if isinstance(code, str) else ""
    return code if code in COUNTRY_CODES else UNKNOWN_COUNTRY
