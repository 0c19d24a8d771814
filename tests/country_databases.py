"""A small IP → country database in the MaxMind DB format, written for the tests by a pinned
writer (mmdb-writer): never a downloaded one. Documentation ranges, laid out as GeoLite2 and
DB-IP lay out their records (`country.iso_code`)."""

from pathlib import Path

from mmdb_writer import MMDBWriter
from netaddr import IPSet  # type: ignore[import-untyped]

# TEST-NET-1 is in Germany, TEST-NET-2 in Japan, 2001:db8::/32 in France; TEST-NET-3 unknown.
COUNTRIES = {"192.0.2.0/24": "DE", "198.51.100.0/24": "JP", "2001:db8::/32": "FR"}


def write_country_database(path: Path, countries: dict[str, str] | None = None) -> Path:
    writer = MMDBWriter(ip_version=6, database_type="GeoLite2-Country", ipv4_compatible=True)
    for network, code in (COUNTRIES if countries is None else countries).items():
        writer.insert_network(IPSet([network]), {"country": {"iso_code": code}})
    writer.to_db_file(str(path))
    return path
