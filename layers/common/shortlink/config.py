"""Configuration: the functions' environment, parsed once into a typed model.

Each function has its model (FUNCTION_SETTINGS, chosen by its POWERTOOLS_SERVICE_NAME), which
requires the resources that function uses and no other: a missing one fails loudly on first use
with the variable's name.
"""

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import ClassVar

from shortlink.domains.model import ShortDomains

# A guessable edge secret would let anyone forge CloudFront's viewer headers.
MIN_EDGE_SECRET_LENGTH = 32
# Regions of one deployment: the id space has this many partitions, fixed for good (shortlink.codes.partitions).
MAX_REGIONS = 8
REGION_NAME = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+")


class ConfigurationError(RuntimeError):
    """The function's environment is incomplete or invalid."""


def comma_list(text: str) -> frozenset[str]:
    """The items of a comma-separated setting, blanks around them dropped."""
    return frozenset(item.strip() for item in text.split(",") if item.strip())


# The variables naming the tables and queues that Settings' properties of the same name read.
RESOURCE_VARIABLES = ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE", "CLICKS_QUEUE_URL")


@dataclass(frozen=True)
class Settings:
    """The stack's settings; a function's own model (below) names the variables it requires."""

    REQUIRES: ClassVar[tuple[str, ...]] = ()
    # Tables and queues by variable (RESOURCE_VARIABLES), each given only to the functions that
    # use it (template.yaml): read through the properties below, which name a missing one.
    resources: Mapping[str, str] = field(default_factory=dict)
    code_length: int = 7
    # "sequence": permuted ids from the counter; "random": CSPRNG codes (see shortlink.codes).
    code_mode: str = "sequence"
    id_block_size: int = 1000
    # The redirect's link cache: a found link may be served this long after an edit or delete.
    link_cache_ttl_seconds: int = 30
    link_negative_cache_ttl_seconds: int = 5
    link_cache_max_entries: int = 10_000
    # Public base of short URLs; empty means "the domain the request came in on".
    public_base_url: str = ""
    # The permutation key comes from SSM in AWS; PERMUTATION_KEY is for the local stack only.
    permutation_key: str = ""
    permutation_key_parameter: str = ""
    # Links one API key may create per minute (0: no limit).
    create_rate_limit_per_minute: int = 60
    # Powertools Idempotency records of creates with an Idempotency-Key (create function only).
    idempotency_table: str = ""
    # Destination domains refused at create (each covers its subdomains).
    blocked_domains: frozenset[str] = frozenset()
    # The SSM parameter holding this stack's other hosts (a link to one loops) besides
    # PUBLIC_BASE_URL's and the request's: its execute-api and edge domains, which the functions
    # cannot reference (see OwnHostsParameter in template.yaml).
    own_hosts_parameter: str = ""
    # The root of the daily visitor-hash salt: SSM in AWS, VISITOR_SALT in the local stack.
    visitor_salt: str = ""
    visitor_salt_parameter: str = ""
    # The secret CloudFront adds to each request it sends to the API (from SSM at deploy; the
    # local stack's own locally): CloudFront's viewer headers are believed only on requests
    # that carry it (shortlink.redirect.visitors). Empty: no edge, and they are never believed.
    edge_secret: str = ""
    # Password attempts per link and client address per UNLOCK_WINDOW_SECONDS (shortlink.access.rate_limits).
    unlock_attempts_per_window: int = 10
    # The redirect's clicks: sent at once after a quiet window, else held and packed, one
    # message per window or per this many clicks (shortlink.clicks.packing).
    click_pack_window_ms: int = 1000
    click_pack_max_clicks: int = 1000
    # The stack's short domains, the default first (SHORT_DOMAINS; see shortlink.domains).
    short_domains: ShortDomains = field(default_factory=ShortDomains)
    # Per-domain fallback pages and app-link files (shortlink.domains.settings): a JSON
    # document, inline locally (DOMAIN_SETTINGS), else read from SSM (DOMAIN_SETTINGS_PARAMETER).
    domain_settings: str = ""
    domain_settings_parameter: str = ""
    # The console's session-signing secret: SSM in AWS, CONSOLE_SESSION_SECRET in the local stack.
    console_session_secret: str = ""
    console_session_secret_parameter: str = ""
    # Console sign-ins per client address per SIGN_IN_WINDOW_SECONDS (shortlink.access.rate_limits).
    sign_in_attempts_per_window: int = 10
    # Webhook endpoints and the queue their events and deliveries go through (shortlink.webhooks);
    # without a queue no event is emitted.
    webhooks_table: str = ""
    webhook_queue_url: str = ""
    # Local stack only: receivers on 127.0.0.1 (the template never sets it).
    webhooks_allow_loopback: bool = False
    # A deployment in several regions (SHORTLINK_REGIONS, in a fixed order that only grows at its
    # end; none: one region, as always), this function's region (AWS_REGION) and the home
    # region, where writes whose uniqueness or order matters are made (SHORTLINK_HOME_REGION).
    regions: tuple[str, ...] = ()
    region: str = ""
    home_region: str = ""

    @property
    def several_regions(self) -> bool:
        return len(self.regions) > 1

    @property
    def region_index(self) -> int:
        """This region's place in SHORTLINK_REGIONS (0 in a single-region deployment)."""
        return self.regions.index(self.region) if self.several_regions else 0

    @property
    def away_from_home(self) -> bool:
        return self.several_regions and self.home_region != self.region

    @property
    def home_region_name(self) -> str | None:
        """The region the home region's adapters name: None in a single-region deployment (the
        function's own, as ever)."""
        return self.home_region if self.several_regions else None

    @property
    def region_name(self) -> str | None:
        """The region this region's own adapters name (None: single-region, as home_region_name)."""
        return self.region if self.several_regions else None

    # A visitor's follows of one link within this many seconds of the last are flagged as
    # repeats (shortlink.clicks.repeats); 0 flags none.
    repeat_click_window_seconds: int = 10
    # An IP → country database (.mmdb) the redirect reads after its response where the edge
    # gives no country (shortlink.clicks.country_database); empty: none.
    country_database: str = ""

    def resource(self, variable: str) -> str:
        value = self.resources.get(variable, "")
        if not value:
            raise ConfigurationError(f"environment variable {variable} is not set")
        return value

    @property
    def links_table(self) -> str:
        return self.resource("LINKS_TABLE")

    @property
    def api_keys_table(self) -> str:
        return self.resource("API_KEYS_TABLE")

    @property
    def counters_table(self) -> str:
        return self.resource("COUNTERS_TABLE")

    @property
    def click_stats_table(self) -> str:
        return self.resource("CLICK_STATS_TABLE")

    @property
    def clicks_queue_url(self) -> str:
        return self.resource("CLICKS_QUEUE_URL")

    @property
    def trust_edge_headers(self) -> bool:
        """An edge is in front and proves, with its secret, which requests came through it."""
        return bool(self.edge_secret)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Settings":
        for name in cls.REQUIRES:
            if not env.get(name, ""):
                raise ConfigurationError(f"environment variable {name} is not set")

        def integer(name: str, default: int, low: int, high: int) -> int:
            raw = env.get(name, "") or str(default)
            try:
                value = int(raw)
            except ValueError:
                raise ConfigurationError(f"{name} must be an integer, got {raw!r}") from None
            if not low <= value <= high:
                raise ConfigurationError(f"{name} must be between {low} and {high}, got {value}")
            return value

        def choice(name: str, default: str, allowed: tuple[str, ...]) -> str:
            value = env.get(name, "") or default
            if value not in allowed:
                raise ConfigurationError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
            return value

        def edge_secret() -> str:
            value = env.get("EDGE_SECRET", "")
            if value and len(value) < MIN_EDGE_SECRET_LENGTH:
                raise ConfigurationError(f"EDGE_SECRET must be at least {MIN_EDGE_SECRET_LENGTH} characters")
            return value

        def short_domains() -> ShortDomains:
            try:
                return ShortDomains.parse(env.get("SHORT_DOMAINS", ""))
            except ValueError as error:
                raise ConfigurationError(f"SHORT_DOMAINS: {error}") from None

        region = env.get("AWS_REGION", "") or env.get("AWS_DEFAULT_REGION", "")
        regions = deployment_regions(env.get("SHORTLINK_REGIONS", ""), region)
        home_region = env.get("SHORTLINK_HOME_REGION", "").strip() or region
        if home_region != region and home_region not in regions:
            raise ConfigurationError(f"SHORTLINK_HOME_REGION {home_region!r} is not one of SHORTLINK_REGIONS")

        return cls(
            resources={variable: env.get(variable, "") for variable in RESOURCE_VARIABLES},
            code_length=integer("CODE_LENGTH", 7, 4, 10),
            code_mode=choice("CODE_MODE", "sequence", ("sequence", "random")),
            id_block_size=integer("ID_BLOCK_SIZE", 1000, 1, 1_000_000),
            link_cache_ttl_seconds=integer("LINK_CACHE_TTL_SECONDS", 30, 0, 3600),
            link_negative_cache_ttl_seconds=integer("LINK_NEGATIVE_CACHE_TTL_SECONDS", 5, 0, 3600),
            link_cache_max_entries=integer("LINK_CACHE_MAX_ENTRIES", 10_000, 1, 1_000_000),
            public_base_url=env.get("PUBLIC_BASE_URL", "").rstrip("/"),
            permutation_key=env.get("PERMUTATION_KEY", ""),
            permutation_key_parameter=env.get("PERMUTATION_KEY_PARAMETER", ""),
            idempotency_table=env.get("IDEMPOTENCY_TABLE", ""),
            create_rate_limit_per_minute=integer("CREATE_RATE_LIMIT_PER_MINUTE", 60, 0, 1_000_000),
            visitor_salt=env.get("VISITOR_SALT", ""),
            visitor_salt_parameter=env.get("VISITOR_SALT_PARAMETER", ""),
            edge_secret=edge_secret(),
            unlock_attempts_per_window=integer("UNLOCK_ATTEMPTS_PER_WINDOW", 10, 1, 1000),
            click_pack_window_ms=integer("CLICK_PACK_WINDOW_MS", 1000, 0, 60_000),
            click_pack_max_clicks=integer("CLICK_PACK_MAX_CLICKS", 1000, 1, 1000),
            blocked_domains=comma_list(env.get("BLOCKED_DOMAINS", "")),
            own_hosts_parameter=env.get("OWN_HOSTS_PARAMETER", ""),
            short_domains=short_domains(),
            domain_settings=env.get("DOMAIN_SETTINGS", ""),
            domain_settings_parameter=env.get("DOMAIN_SETTINGS_PARAMETER", ""),
            console_session_secret=env.get("CONSOLE_SESSION_SECRET", ""),
            console_session_secret_parameter=env.get("CONSOLE_SESSION_SECRET_PARAMETER", ""),
            sign_in_attempts_per_window=integer("SIGN_IN_ATTEMPTS_PER_WINDOW", 10, 1, 1000),
            webhooks_table=env.get("WEBHOOKS_TABLE", ""),
            webhook_queue_url=env.get("WEBHOOK_QUEUE_URL", ""),
            webhooks_allow_loopback=env.get("SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK", "") == "true",
            regions=regions,
            region=region,
            home_region=home_region,
            repeat_click_window_seconds=integer("REPEAT_CLICK_WINDOW_SECONDS", 10, 0, 3600),
            country_database=env.get("COUNTRY_DATABASE", ""),
        )


def deployment_regions(text: str, region: str) -> tuple[str, ...]:
    """SHORTLINK_REGIONS as a checked tuple (empty: a single-region deployment), which must
    name `region`, this function's."""
    regions = tuple(item.strip() for item in text.split(",") if item.strip())
    if not regions:
        return ()
    for name in regions:
        if not REGION_NAME.fullmatch(name):
            raise ConfigurationError(f"SHORTLINK_REGIONS: {name!r} is not a region name")
    if len(set(regions)) != len(regions):
        raise ConfigurationError("SHORTLINK_REGIONS names a region twice")
    if len(regions) > MAX_REGIONS:
        raise ConfigurationError(f"SHORTLINK_REGIONS names more than {MAX_REGIONS} regions")
    if region not in regions:
        raise ConfigurationError(f"SHORTLINK_REGIONS does not name this function's region {region!r} (AWS_REGION)")
    return regions


# One model per function: the resources it reads or writes (its IAM policy's, in template.yaml).
class CreateSettings(Settings):
    REQUIRES = ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "IDEMPOTENCY_TABLE")


class RedirectSettings(Settings):
    # Counters: password attempts per window; the queue: its clicks.
    REQUIRES = ("LINKS_TABLE", "COUNTERS_TABLE", "CLICKS_QUEUE_URL")


class ManageSettings(Settings):
    REQUIRES = ("LINKS_TABLE", "API_KEYS_TABLE", "CLICK_STATS_TABLE")


class TransferSettings(Settings):
    REQUIRES = ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE")


class KeysSettings(Settings):
    REQUIRES = ("API_KEYS_TABLE",)


class DocsSettings(Settings):
    REQUIRES = ()


class ConsoleSettings(Settings):
    REQUIRES = ("LINKS_TABLE", "API_KEYS_TABLE", "COUNTERS_TABLE", "CLICK_STATS_TABLE")


class IngestSettings(Settings):
    REQUIRES = ("CLICK_STATS_TABLE",)


class AccountStatsSettings(Settings):
    REQUIRES = ("CLICK_STATS_TABLE",)


class WebhookEndpointsSettings(Settings):
    REQUIRES = ("API_KEYS_TABLE", "WEBHOOKS_TABLE")


class WebhooksSettings(Settings):
    # Links: the owners and tags of the links an event names.
    REQUIRES = ("LINKS_TABLE", "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL")


# Each function's model by its service name (POWERTOOLS_SERVICE_NAME in template.yaml). Where
# none is set (tools, tests, the local stack, which runs every function in one process with the
# union of their variables) the plain model requires nothing.
FUNCTION_SETTINGS: dict[str, type[Settings]] = {
    "create": CreateSettings,
    "redirect": RedirectSettings,
    "manage": ManageSettings,
    "transfer": TransferSettings,
    "keys": KeysSettings,
    "docs": DocsSettings,
    "console": ConsoleSettings,
    "ingest": IngestSettings,
    "account-stats": AccountStatsSettings,
    "webhook-endpoints": WebhookEndpointsSettings,
    "webhooks": WebhooksSettings,
}


def function_settings(env: Mapping[str, str]) -> Settings:
    """The settings of the function `env` names by its service, read with its model."""
    service = env.get("POWERTOOLS_SERVICE_NAME", "")
    if service and service not in FUNCTION_SETTINGS:
        raise ConfigurationError(f"POWERTOOLS_SERVICE_NAME {service!r} names no function's settings")
    return FUNCTION_SETTINGS.get(service, Settings).from_env(env)


@cache
def settings() -> Settings:
    """The settings of this execution environment, read from os.environ on first use."""
    return function_settings(os.environ)
