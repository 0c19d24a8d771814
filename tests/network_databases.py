"""A small IP → autonomous system database in the MaxMind DB format, written for the tests by a
pinned writer (mmdb-writer): never a downloaded one. Documentation ranges, laid out as GeoLite2
ASN and DB-IP ASN Lite lay out their records."""

from pathlib import Path

from mmdb_writer import MMDBWriter
from netaddr import IPSet  # type: ignore[import-untyped]

# TEST-NET-1 is Microsoft's (Safe Links fetches from it), TEST-NET-2 a Proofpoint network under a
# number no list names, 2001:db8::/32 a home broadband provider's; TEST-NET-3 unknown.
NETWORKS = {
    "192.0.2.0/24": (8075, "MICROSOFT-CORP-MSN-AS-BLOCK"),
    "198.51.100.0/24": (4_200_000_001, "Proofpoint, Inc."),
    "2001:db8::/32": (3320, "Deutsche Telekom AG"),
}


def write_network_database(path: Path) -> Path:
    writer = MMDBWriter(ip_version=6, database_type="GeoLite2-ASN", ipv4_compatible=True)
    for network, (number, organisation) in NETWORKS.items():
        record = {"autonomous_system_number": number, "autonomous_system_organization": organisation}
        writer.insert_network(IPSet([network]), record)
    writer.to_db_file(str(path))
    return path
