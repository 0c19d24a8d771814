"""Configuration: the functions' environment, parsed once into a typed model.

A missing required variable fails loudly on first use with the variable's name.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from shortlink.domains.model import ShortDomains

# A guessable edge secret would let anyone forge CloudFront's viewer headers.
MIN_EDGE_SECRET_LENGTH = 32


class ConfigurationError(RuntimeError):
    """The function's environment is incomplete or invalid."""


def comma_list(text: str) -> frozenset[str]:
    """The items of a comma-separated setting, blanks around them dropped."""
    return frozenset(item.strip() for item in text.split(",") if item.strip())


@dataclass(frozen=True)
class Settings:
    links_table: str
    api_keys_table: str
    counters_table: str
    click_stats_table: str
    clicks_queue_url: str
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

    @property
    def trust_edge_headers(self) -> bool:
        """An edge is in front and proves, with its secret, which requests came through it."""
        return bool(self.edge_secret)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Settings":
        def required(name: str) -> str:
            value = env.get(name, "")
            if not value:
                raise ConfigurationError(f"environment variable {name} is not set")
            return value

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

        return cls(
            links_table=required("LINKS_TABLE"),
            api_keys_table=required("API_KEYS_TABLE"),
            counters_table=required("COUNTERS_TABLE"),
            click_stats_table=required("CLICK_STATS_TABLE"),
            clicks_queue_url=required("CLICKS_QUEUE_URL"),
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
        )


@cache
def settings() -> Settings:
    """The settings of this execution environment, read from os.environ on first use."""
    return Settings.from_env(os.environ)
