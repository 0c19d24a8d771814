"""How clicks from email and security scanners that fetch with a browser's User-Agent are told
apart (shortlink.clicks.scanner_signals): the networks they fetch from and their timing."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, choice, comma_list, integer, variable

# Autonomous systems of mail-security scanners and of the clouds scanners run in: Microsoft
# (Safe Links; also Azure), Proofpoint, Amazon, Google, Oracle. Check them against your database.
SCANNER_ASNS = frozenset({8075, 8068, 22843, 26211, 16509, 14618, 15169, 396982, 31898})
# ... and by the organisation's name as DB-IP and GeoLite2 write it, where numbers change.
SCANNER_NETWORK_NAMES = frozenset(
    {"microsoft", "proofpoint", "mimecast", "barracuda", "cisco", "forcepoint", "trend micro", "amazon", "google"}
)
MAX_AUTONOMOUS_SYSTEM = 4_294_967_295


def autonomous_systems(text: str) -> frozenset[int]:
    """Comma-separated autonomous system numbers, `AS` before each allowed (`AS8075, 22843`)."""
    from shortlink.numbers import whole_number  # only where the list is set: not on every cold start

    return frozenset(
        whole_number(item.upper().removeprefix("AS"), "an autonomous system", maximum=MAX_AUTONOMOUS_SYSTEM)
        for item in comma_list(text)
    )


def lower_case_names(text: str) -> frozenset[str]:
    return frozenset(name.lower() for name in comma_list(text))


@dataclass(frozen=True)
class ScannerSettings(EnvironmentModel):
    # `off`: no click is taken for a scanner's by its network (the database is then not read).
    networks: str = choice("SCANNER_NETWORKS", "on", ("on", "off"))
    asns: frozenset[int] = variable("SCANNER_ASNS", SCANNER_ASNS, autonomous_systems)
    network_names: frozenset[str] = variable("SCANNER_NETWORK_NAMES", SCANNER_NETWORK_NAMES, lower_case_names)
    # This many distinct links of one visitor within the window make a burst; 0: no burst signal.
    burst_links: int = integer("SCANNER_BURST_LINKS", 3, 0, 100)
    burst_window_ms: int = integer("SCANNER_BURST_WINDOW_MS", 1000, 1, 60_000)
