"""IP databases in the MaxMind DB format (`.mmdb`), read in the redirect's environment after its
response: countries (shortlink.clicks.country_database) and networks
(shortlink.clicks.network_database). An address is looked up and forgotten, never stored. The
reader (`maxminddb`) is imported only when a database is opened.
"""

import ipaddress
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

logger = logging.getLogger("shortlink.clicks")

Database = TypeVar("Database", covariant=True)


class MmdbFile:
    """One `.mmdb` file, opened whole into memory (a few megabytes); a corrupt file fails here."""

    def __init__(self, path: str) -> None:
        import maxminddb

        self._reader = maxminddb.open_database(path, maxminddb.MODE_MEMORY)

    def record(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Any:
        """The database's record for the address; None when it has none."""
        try:
            return self._reader.get(address)
        except ValueError:  # an IPv6 address in an IPv4-only database
            return None


class DatabaseSource(Protocol[Database]):
    """Where a click's reading finds a database: a file of the function, or an object in S3
    refreshed without a redeploy (shortlink.adapters.s3.ip_database_objects)."""

    def current(self) -> Database | None:
        """The database to read now; None without one."""
        ...


@dataclass(frozen=True, slots=True)
class FixedDatabase(Generic[Database]):
    """A database opened once (None: none)."""

    database: Database | None

    def current(self) -> Database | None:
        return self.database


def open_database(path: str, kind: Callable[[str], Database]) -> FixedDatabase[Database]:
    """The database at `path` opened as `kind`; none without a path, or when it cannot be read
    (logged: its dimension is then unknown, clicks are still counted)."""
    if not path:
        return FixedDatabase(None)
    try:
        return FixedDatabase(kind(path))
    except Exception:
        logger.exception("IP database %s not readable: read as none", path)
        return FixedDatabase(None)
