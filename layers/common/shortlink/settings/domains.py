"""The stack's short domains and their pages (shortlink.domains)."""

from dataclasses import dataclass

from shortlink.domains.model import ShortDomains
from shortlink.settings.environment import EnvironmentModel, text, variable


@dataclass(frozen=True)
class ShortDomainSettings(EnvironmentModel):
    # The default first (SHORT_DOMAINS; see shortlink.domains).
    short_domains: ShortDomains = variable("SHORT_DOMAINS", ShortDomains(), ShortDomains.parse)
    # Per-domain fallback pages and app-link files (shortlink.domains.settings): a JSON document,
    # inline locally (DOMAIN_SETTINGS), else read from SSM (DOMAIN_SETTINGS_PARAMETER).
    pages: str = text("DOMAIN_SETTINGS")
    pages_parameter: str = text("DOMAIN_SETTINGS_PARAMETER")
