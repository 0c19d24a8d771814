"""Each function's settings: the concerns it reads and the tables and queues it must be told.

A function is known by its service name (POWERTOOLS_SERVICE_NAME in template.yaml). Where none is
set (tools, tests, the local stack, which runs every function in one process with the union of
their variables) nothing is required, and each concern is read on first use.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from shortlink.errors import ConfigurationError
from shortlink.settings.addresses import AddressSettings
from shortlink.settings.clicks import ClickSettings
from shortlink.settings.codes import CodeSettings
from shortlink.settings.console import ConsoleSettings
from shortlink.settings.domains import ShortDomainSettings
from shortlink.settings.edge import EdgeSettings
from shortlink.settings.environment import Concern
from shortlink.settings.ip_databases import IpDatabaseSettings
from shortlink.settings.link_cache import LinkCacheSettings
from shortlink.settings.metrics import RedirectMetricSettings
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.settings.regions import RegionSettings
from shortlink.settings.resources import Resources
from shortlink.settings.scanners import ScannerSettings
from shortlink.settings.webhooks import WebhookSettings


@dataclass(frozen=True)
class FunctionSettings:
    # The variables of the Resources it uses (its IAM policy's, in template.yaml).
    requires: tuple[str, ...]
    reads: tuple[type[Concern], ...]

    def read(self, env: Mapping[str, str]) -> dict[type[Concern], Concern]:
        """Each of its concerns' models: ConfigurationError naming the first variable missing or wrong."""
        for name in self.requires:
            if not env.get(name, ""):
                raise ConfigurationError(f"environment variable {name} is not set")
        concerns: tuple[type[Concern], ...] = (Resources, *self.reads)
        return {concern: concern.from_env(env) for concern in concerns}


# What the API's link routes read: the links' addresses and domains, the deployment's regions, and
# the edge (its secret: whose address the audit log hashes).
LINK_ROUTES = (AddressSettings, ShortDomainSettings, RegionSettings, EdgeSettings)

FUNCTIONS: dict[str, FunctionSettings] = {
    "create": FunctionSettings(
        ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "IDEMPOTENCY_TABLE"),
        (*LINK_ROUTES, CodeSettings, RateLimitSettings),
    ),
    # Counters: password attempts per window; the queue: its clicks.
    "redirect": FunctionSettings(
        ("LINKS_TABLE", "COUNTERS_TABLE", "CLICKS_QUEUE_URL"),
        (
            ShortDomainSettings,
            RegionSettings,
            LinkCacheSettings,
            EdgeSettings,
            ClickSettings,
            IpDatabaseSettings,
            ScannerSettings,
            RateLimitSettings,
            RedirectMetricSettings,
        ),
    ),
    "manage": FunctionSettings(("LINKS_TABLE", "API_KEYS_TABLE", "CLICK_STATS_TABLE"), LINK_ROUTES),
    "transfer": FunctionSettings(
        ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE"),
        (*LINK_ROUTES, CodeSettings, RateLimitSettings),
    ),
    "keys": FunctionSettings(("API_KEYS_TABLE",), (RegionSettings, EdgeSettings)),
    # Members and invitations beside the keys; the public address an invitation's link names.
    "team": FunctionSettings(("API_KEYS_TABLE",), (AddressSettings, RegionSettings, EdgeSettings)),
    "docs": FunctionSettings((), ()),
    "console": FunctionSettings(
        ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE"),
        (*LINK_ROUTES, CodeSettings, RateLimitSettings, ConsoleSettings),
    ),
    "ingest": FunctionSettings(("CLICK_STATS_TABLE",), (RedirectMetricSettings,)),
    "account-stats": FunctionSettings(("CLICK_STATS_TABLE",), ()),
    # The stream and a scan of the links, the stats for the capacity rule; the store it writes
    # (EDGE_STORE_ARN, the edge stack's output) is read on first use.
    "edge-sync": FunctionSettings(("LINKS_TABLE", "CLICK_STATS_TABLE"), (ShortDomainSettings,)),
    # The counters' day items; the lake's workgroup and database (the lake stack's outputs) are
    # read on first use.
    "click-lake-check": FunctionSettings(("CLICK_STATS_TABLE",), ()),
    # CloudWatch only, under the stack's metrics namespace (EDGE_FUNCTION_NAME, the edge stack's
    # output, is read on first use).
    "edge-counts": FunctionSettings((), (RedirectMetricSettings,)),
    "webhook-endpoints": FunctionSettings(("API_KEYS_TABLE", "WEBHOOKS_TABLE"), (*LINK_ROUTES, WebhookSettings)),
    # Links: the owners and tags of the links an event names.
    "webhooks": FunctionSettings(
        ("LINKS_TABLE", "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL"), (ShortDomainSettings, RegionSettings, WebhookSettings)
    ),
}


def function_settings(env: Mapping[str, str]) -> dict[type[Concern], Concern]:
    """The settings of the function `env` names by its service (none named: none read yet)."""
    service = env.get("POWERTOOLS_SERVICE_NAME", "")
    if not service:
        return {}
    if service not in FUNCTIONS:
        raise ConfigurationError(f"POWERTOOLS_SERVICE_NAME {service!r} names no function's settings")
    return FUNCTIONS[service].read(env)
