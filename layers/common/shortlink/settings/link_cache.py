"""The redirect's link cache (shortlink.redirect.cache)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, integer


@dataclass(frozen=True)
class LinkCacheSettings(EnvironmentModel):
    # A found link may be served this long after an edit or delete.
    ttl_seconds: int = integer("LINK_CACHE_TTL_SECONDS", 30, 0, 3600)
    negative_ttl_seconds: int = integer("LINK_NEGATIVE_CACHE_TTL_SECONDS", 5, 0, 3600)
    max_entries: int = integer("LINK_CACHE_MAX_ENTRIES", 10_000, 1, 1_000_000)
