"""The adapters each function uses, built from settings on first use and kept per environment.

Nothing here runs at import. Tests reset everything with `reset()`.
"""

from functools import cache
from typing import TYPE_CHECKING

from shortlink.adapters.dynamodb import (
    DynamoApiKeyStore,
    DynamoClickCounterStore,
    DynamoCounterStore,
    DynamoLinkRepository,
)
from shortlink.adapters.sqs import SqsClickPublisher
from shortlink.config import settings
from shortlink.link_cache import CachedLinks

if TYPE_CHECKING:
    from shortlink.codes import CodeGenerator


@cache
def link_repository() -> DynamoLinkRepository:
    return DynamoLinkRepository(settings().links_table)


@cache
def cached_links() -> CachedLinks:
    """The redirect's view of links: this environment's cache in front of the table."""
    config = settings()
    return CachedLinks(
        link_repository(),
        max_entries=config.link_cache_max_entries,
        ttl_seconds=config.link_cache_ttl_seconds,
        negative_ttl_seconds=config.link_negative_cache_ttl_seconds,
    )


@cache
def api_key_store() -> DynamoApiKeyStore:
    return DynamoApiKeyStore(settings().api_keys_table)


@cache
def click_counter_store() -> DynamoClickCounterStore:
    return DynamoClickCounterStore(settings().click_stats_table)


@cache
def click_publisher() -> SqsClickPublisher:
    return SqsClickPublisher(settings().clicks_queue_url)


@cache
def code_generator() -> "CodeGenerator":
    # Imported here: only the create function generates codes; the redirect's cold start
    # should not pay for the permutation and the key loader.
    from shortlink.codes import CodeGenerator
    from shortlink.id_blocks import IdBlockAllocator
    from shortlink.permutation_key import load_permutation_key

    config = settings()
    allocator = IdBlockAllocator(DynamoCounterStore(config.counters_table), config.id_block_size)
    return CodeGenerator(allocator, load_permutation_key(config), config.code_length)


def reset() -> None:
    """Forget every cached adapter and the settings (for tests that change the environment)."""
    for factory in (
        link_repository,
        cached_links,
        api_key_store,
        click_counter_store,
        click_publisher,
        code_generator,
        settings,
    ):
        factory.cache_clear()
