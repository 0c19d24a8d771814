"""What the redirect's modules still read here until they are handed their values: the few
settings they use, read from os.environ with the concerns' models (shortlink.settings). Nothing
else imports it; the composition root (shortlink.wiring) reads every other setting.
"""

import os
from dataclasses import dataclass
from functools import cache
from typing import cast

from shortlink.domains.model import ShortDomains
from shortlink.errors import ConfigurationError
from shortlink.settings.clicks import ClickSettings
from shortlink.settings.domains import ShortDomainSettings
from shortlink.settings.edge import EdgeSettings
from shortlink.settings.functions import function_settings
from shortlink.settings.rate_limits import RateLimitSettings

__all__ = ["ConfigurationError", "RedirectSettings", "settings"]


@dataclass(frozen=True)
class RedirectSettings:
    edge: EdgeSettings
    clicks: ClickSettings
    domains: ShortDomainSettings
    rate_limits: RateLimitSettings

    @property
    def edge_secret(self) -> str:
        return self.edge.secret

    @property
    def trust_edge_headers(self) -> bool:
        return self.edge.trust_edge_headers

    @property
    def short_domains(self) -> ShortDomains:
        return self.domains.short_domains

    @property
    def unlock_attempts_per_window(self) -> int:
        return self.rate_limits.unlock_attempts_per_window

    @property
    def click_pack_window_ms(self) -> int:
        return self.clicks.pack_window_ms

    @property
    def click_pack_max_clicks(self) -> int:
        return self.clicks.pack_max_clicks

    @property
    def repeat_click_window_seconds(self) -> int:
        return self.clicks.repeat_window_seconds

    @property
    def country_database(self) -> str:
        return self.clicks.country_database


@cache
def settings() -> RedirectSettings:
    """The redirect's settings, read from os.environ on first use with its function's whole set
    (shortlink.settings.functions): a variable the function requires that is missing is named."""
    env = os.environ
    read = function_settings(env)
    return RedirectSettings(
        cast(EdgeSettings, read.get(EdgeSettings) or EdgeSettings.from_env(env)),
        cast(ClickSettings, read.get(ClickSettings) or ClickSettings.from_env(env)),
        cast(ShortDomainSettings, read.get(ShortDomainSettings) or ShortDomainSettings.from_env(env)),
        cast(RateLimitSettings, read.get(RateLimitSettings) or RateLimitSettings.from_env(env)),
    )
