"""What the redirect reads with: its cache of links and robots.txt, its reading of requests, the
exact click budget of max_clicks links and the domains' own pages."""

import time
from typing import TYPE_CHECKING

from shortlink.errors import StorageUnavailable
from shortlink.settings.domains import ShortDomainSettings
from shortlink.settings.edge import EdgeSettings
from shortlink.settings.link_cache import LinkCacheSettings
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.wiring.environment import regions, resources, settings_of, short_domains
from shortlink.wiring.factories import factory
from shortlink.wiring.limits import attempt_log

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget
    from shortlink.domains.settings import DomainSettings
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.click_dispatch import ClickDispatcher
    from shortlink.redirect.request import RequestReading
    from shortlink.redirect.responses import PlainRedirect
    from shortlink.redirect.robots import CachedRobots
    from shortlink.redirect.services import RedirectServices


@factory
def cached_links() -> "CachedLinks[PlainRedirect]":
    """The redirect's view of links: this environment's cache in front of a plain GetItem, which
    keeps each plain link's ready-made redirect (away from home, a miss asks the home region too)."""
    from shortlink.adapters.dynamodb.link_reader import DynamoLinkReader, MissesAskHome
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.responses import plain_redirect

    cache = settings_of(LinkCacheSettings)
    table, deployment = resources().links_table.value, regions()
    here = DynamoLinkReader(table)
    source: DynamoLinkReader | MissesAskHome = here
    if deployment.away_from_home:
        home = DynamoLinkReader(table, deployment.home_region_name)
        source = MissesAskHome(here, home, time.monotonic, cache.negative_ttl_seconds)
    return CachedLinks(
        source,
        max_entries=cache.max_entries,
        ttl_seconds=cache.ttl_seconds,
        negative_ttl_seconds=cache.negative_ttl_seconds,
        clock=time.monotonic,
        prepare=plain_redirect,
    )


def forget_cached_links() -> None:
    """A fresh environment's view of links: the next follow reads the table again."""
    cached_links.cache_clear()
    redirect_services.cache_clear()  # which holds the cache


@factory
def cached_robots() -> "CachedRobots":
    """The redirect's robots.txt: the crawlable links' codes, read at most once per TTL."""
    from shortlink.adapters.dynamodb.link_reader import DynamoCrawlableCodes
    from shortlink.redirect.robots import CachedRobots

    return CachedRobots(DynamoCrawlableCodes(resources().links_table.value), time.monotonic)


def load_link_reader() -> None:
    """Import the redirect's link reader (botocore) now: the redirect calls this at init."""
    import shortlink.adapters.dynamodb.link_reader  # noqa: F401


@factory
def request_reading() -> "RequestReading":
    """How the redirect reads its requests: the edge's secret and the short domains."""
    from shortlink.redirect.request import RequestReading

    return RequestReading(settings_of(EdgeSettings).secret, short_domains())


@factory
def redirect_services(dispatcher: "ClickDispatcher") -> "RedirectServices":
    """What the redirect's walk and pages call (shortlink.redirect.services), with `dispatcher`,
    which the redirect made at init; its settings read once, the cache of links made with it (the
    first request makes it), its other adapters made on first use."""
    from shortlink.redirect.services import RedirectServices

    return RedirectServices(
        links=cached_links(),
        dispatcher=dispatcher,
        reading=request_reading(),
        unlock_attempts_per_window=settings_of(RateLimitSettings).unlock_attempts_per_window,
        click_budget=click_budget,
        attempt_log=attempt_log,
        domain_settings=domain_settings,
        robots=cached_robots,
    )


@factory
def click_budget() -> "DynamoClickBudget":
    """The redirect's exact counter for links with max_clicks, in the home region's table: one
    cross-region UpdateItem per such follow away from home."""
    from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget

    return DynamoClickBudget(resources().links_table.value, regions().home_region_name)


@factory
def domain_settings() -> "dict[str, DomainSettings]":
    """Each domain's fallback pages and app-link files (shortlink.domains.settings): read on first
    need, once per environment, from DOMAIN_SETTINGS (local) or the SSM parameter; a plain
    botocore client, as the redirect reads it."""
    from shortlink.domains.settings import parse_domain_settings

    domains = settings_of(ShortDomainSettings)
    text = domains.pages
    if not text and domains.pages_parameter:
        from botocore.exceptions import BotoCoreError, ClientError

        from shortlink.adapters.botocore_clients import botocore_client

        ssm = botocore_client("ssm")
        try:
            text = ssm.get_parameter(Name=domains.pages_parameter)["Parameter"]["Value"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"domain settings not readable: {error}") from error
    return parse_domain_settings(text, domains.short_domains)
