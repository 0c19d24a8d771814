"""A click's country from its address, without the edge: an IP → country database (DB-IP's IP to
Country Lite, MaxMind's GeoLite2 Country, ...; shortlink.clicks.ip_databases)."""

import ipaddress
from typing import Any

from shortlink.clicks.ip_databases import MmdbFile
from shortlink.rules.countries import COUNTRY_CODES, UNKNOWN_COUNTRY


class CountryDatabase(MmdbFile):
    """Countries by address."""

    def country(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
        """The ISO 3166 code of the address's country; XX when the database does not know it."""
        return record_country(self.record(address))


def record_country(record: Any) -> str:
    """The country a database record names: GeoLite2 and DB-IP write `country.iso_code`, others
    a flat `country_code`; XX for anything else."""
    if not isinstance(record, dict):
        return UNKNOWN_COUNTRY
    country = record.get("country")
    code = country.get("iso_code") if isinstance(country, dict) else record.get("country_code")
    code = code.upper() if isinstance(code, str) else ""
    return code if code in COUNTRY_CODES else UNKNOWN_COUNTRY
