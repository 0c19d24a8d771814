"""The adapters each function uses, built from settings on first use and kept per environment.

Nothing here runs at import but an empty table, and each factory imports its own adapter: a
function loads only the adapters it uses (the redirect never loads pynamodb). Tests reset
everything with `reset()`.

In a deployment of several regions (SHORTLINK_REGIONS), the adapters of writes whose uniqueness
or order matters (links but generated ones, API keys, webhook endpoints, the click budget of
max_clicks) are built for the home region's tables; the redirect's reads, the clicks, the id
counter and the rate-limit windows stay in this region.
"""

import os
import time
from functools import cache
from typing import TYPE_CHECKING, Any

from shortlink.config import ConfigurationError, settings
from shortlink.errors import StorageUnavailable

if TYPE_CHECKING:
    from shortlink.adapters.cognito.invitation_messages import PrintedInvitationMessages, SesInvitationMessages
    from shortlink.adapters.cognito.user_pool import CognitoUserPool
    from shortlink.adapters.dynamodb.account_changes import AccountChanges
    from shortlink.adapters.dynamodb.account_days import DynamoAccountDays
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
    from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
    from shortlink.adapters.dynamodb.away_links import AwayLinkRepository
    from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget
    from shortlink.adapters.dynamodb.click_counter import DynamoClickCounter
    from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader
    from shortlink.adapters.dynamodb.imports import DynamoImportingLinks
    from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
    from shortlink.adapters.dynamodb.memberships import DynamoInvitations, DynamoMemberships, DynamoPersonSessions
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter
    from shortlink.adapters.dynamodb.webhooks import DynamoEndpointStore, DynamoLinkOwners
    from shortlink.adapters.http.jwks import CachedJwks
    from shortlink.adapters.http.webhooks import HttpWebhookSender
    from shortlink.adapters.sqs.clicks import SqsClickPublisher
    from shortlink.adapters.sqs.webhooks import SqsWebhookQueue
    from shortlink.audit.recording import AuditRecorder
    from shortlink.codes.generator import CodeSource
    from shortlink.domains.settings import DomainSettings
    from shortlink.people.access_tokens import PersonAccess
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.responses import PlainRedirect
    from shortlink.redirect.robots import CachedRobots
    from shortlink.settings.people import PeopleSettings


@cache
def link_repository() -> "DynamoLinkRepository | AwayLinkRepository":
    """The API's links: away from home, the home region's table but for links whose code is
    unique by construction (adapters/dynamodb/away_links.py)."""
    from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository

    config = settings()
    home = DynamoLinkRepository(config.links_table, config.home_region_name)
    # Random codes are unique only by the conditional put: made at home, where it decides.
    if not config.away_from_home or config.code_mode == "random":
        return home
    from shortlink.adapters.dynamodb.away_links import AwayLinkRepository

    return AwayLinkRepository(home, DynamoLinkRepository(config.links_table, config.region_name))


@cache
def importing_links() -> "DynamoImportingLinks":
    """The links repository of imports: it also claims imported records (shortlink.transfer.imports),
    in the home region's table."""
    from shortlink.adapters.dynamodb.imports import DynamoImportingLinks

    config = settings()
    return DynamoImportingLinks(config.links_table, config.home_region_name)


# The key prefix of each host that names one of the stack's domains (shortlink.domains), set with
# cached_links(): the redirect reads it without a call. Empty on a stack without Domains.
host_prefixes: dict[str, str] = {}


@cache
def cached_links() -> "CachedLinks[PlainRedirect]":
    """The redirect's view of links: this environment's cache in front of a plain GetItem, which
    keeps each plain link's ready-made redirect."""
    from shortlink.adapters.dynamodb.link_reader import DynamoLinkReader
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.responses import plain_redirect

    config = settings()
    host_prefixes.clear()
    host_prefixes.update(config.short_domains.prefixes)
    return CachedLinks(
        DynamoLinkReader(config.links_table),
        max_entries=config.link_cache_max_entries,
        ttl_seconds=config.link_cache_ttl_seconds,
        negative_ttl_seconds=config.link_negative_cache_ttl_seconds,
        clock=time.monotonic,
        prepare=plain_redirect,
    )


@cache
def cached_robots() -> "CachedRobots":
    """The redirect's robots.txt: the crawlable links' codes, read at most once per TTL."""
    from shortlink.adapters.dynamodb.link_reader import DynamoCrawlableCodes
    from shortlink.redirect.robots import CachedRobots

    return CachedRobots(DynamoCrawlableCodes(settings().links_table), time.monotonic)


def load_link_reader() -> None:
    """Import the redirect's link reader (botocore) now: the redirect calls this at init."""
    import shortlink.adapters.dynamodb.link_reader  # noqa: F401


@cache
def click_budget() -> "DynamoClickBudget":
    """The redirect's exact counter for links with max_clicks, in the home region's table: one
    cross-region UpdateItem per such follow away from home."""
    from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget

    config = settings()
    return DynamoClickBudget(config.links_table, config.home_region_name)


@cache
def api_key_store() -> "DynamoApiKeyStore":
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore

    config = settings()
    return DynamoApiKeyStore(config.api_keys_table, config.home_region_name, config.region_name)


@cache
def memberships() -> "DynamoMemberships":
    """Workspaces' members, beside the keys in the API keys table (adapters/dynamodb/memberships.py)."""
    from shortlink.adapters.dynamodb.memberships import DynamoMemberships

    config = settings()
    return DynamoMemberships(config.api_keys_table, config.home_region_name, config.region_name)


@cache
def person_sessions() -> "DynamoPersonSessions":
    from shortlink.adapters.dynamodb.memberships import DynamoPersonSessions

    config = settings()
    return DynamoPersonSessions(config.api_keys_table, config.home_region_name)


@cache
def invitations() -> "DynamoInvitations":
    from shortlink.adapters.dynamodb.memberships import DynamoInvitations

    config = settings()
    return DynamoInvitations(config.api_keys_table, config.home_region_name)


@cache
def people_settings() -> "PeopleSettings":
    from shortlink.settings.people import PeopleSettings

    return PeopleSettings.from_env(os.environ)


@cache
def user_pool() -> "CognitoUserPool":
    from shortlink.adapters.cognito.user_pool import CognitoUserPool

    config = people_settings()
    if not config.enabled:
        raise ConfigurationError("PEOPLE_USER_POOL_ID and PEOPLE_CLIENT_ID are not set")
    return CognitoUserPool(config.user_pool_id, config.client_id)


@cache
def invitation_messages() -> "SesInvitationMessages | PrintedInvitationMessages | None":
    """How invitations are sent: SES from the configured address, printed (`make dev`), or None:
    the inviter is shown the link to pass on."""
    from shortlink.adapters.cognito.invitation_messages import PrintedInvitationMessages, SesInvitationMessages

    config = people_settings()
    if config.invitations_from:
        return SesInvitationMessages(config.invitations_from)
    return PrintedInvitationMessages() if config.print_invitations else None


def person_access() -> "PersonAccess | None":
    """What the API takes people's access tokens with; None where no user pool is configured."""
    from shortlink.people.access_tokens import PersonAccess, TokenIssuer

    config = people_settings()
    if not config.enabled:
        return None
    return PersonAccess(TokenIssuer(config.issuer, config.client_id), pool_keys(), memberships())


@cache
def pool_keys() -> "CachedJwks":
    """The user pool's signing keys, read on the first access token and kept (read again for a
    key not seen yet)."""
    from shortlink.adapters.http.jwks import CachedJwks

    return CachedJwks(people_settings().jwks_url)


@cache
def click_counter() -> "DynamoClickCounter":
    """Ingest's exactly-once writes of click counters."""
    from shortlink.adapters.dynamodb.click_counter import DynamoClickCounter

    return DynamoClickCounter(settings().click_stats_table)


@cache
def click_stats() -> "DynamoClickStatsReader":
    """The stats reads (the API's, the console's, the exports' and the account days')."""
    from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader

    return DynamoClickStatsReader(settings().click_stats_table)


@cache
def account_days() -> "DynamoAccountDays":
    from shortlink.adapters.dynamodb.account_days import DynamoAccountDays

    return DynamoAccountDays(click_stats())  # one client for both


def account_changes(records: list[dict[str, Any]]) -> "AccountChanges":
    """A batch of the click-stats stream's records as changes of account days (this region's)."""
    from shortlink.adapters.dynamodb.account_changes import account_changes as changes_of

    return changes_of(records, account_days().region())


@cache
def click_publisher() -> "SqsClickPublisher":
    from shortlink.adapters.sqs.clicks import SqsClickPublisher

    return SqsClickPublisher(settings().clicks_queue_url)


@cache
def code_generator() -> "CodeSource":
    # Imported here: only the create function generates codes; the redirect's cold start
    # should not pay for the permutation and the key loader.
    from shortlink.adapters.dynamodb.id_counter import DynamoCounterStore
    from shortlink.codes.generator import CodeGenerator, RandomCodeGenerator
    from shortlink.codes.id_blocks import IdBlockAllocator
    from shortlink.codes.partitions import IdPartition, counter_name
    from shortlink.codes.permutation_key import load_permutation_key

    config = settings()
    if config.code_mode == "random":
        return RandomCodeGenerator(config.code_length)
    # Several regions: this region's counter item and id partition (no cross-region call).
    region, partition = (config.region, IdPartition(config.region_index)) if config.several_regions else (None, None)
    allocator = IdBlockAllocator(DynamoCounterStore(config.counters_table, counter_name(region)), config.id_block_size)
    return CodeGenerator(allocator, load_permutation_key(config), config.code_length, partition)


@cache
def visitor_salt_root() -> bytes:
    """The secret root of the daily visitor-hash salt (read after a response, then kept)."""
    from shortlink.clicks.visitor_hashes import load_salt_root

    return load_salt_root(settings())


@cache
def window_counter() -> "DynamoWindowCounter":
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter

    config = settings()
    # Several regions: windows of this region's own (a global table would lose concurrent ADDs).
    return DynamoWindowCounter(config.counters_table, config.region if config.several_regions else None)


@cache
def idempotency_store() -> Any:
    """Powertools' DynamoDB persistence layer for idempotent creates."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    table = settings().idempotency_table
    if not table:
        raise ConfigurationError("IDEMPOTENCY_TABLE is not set")
    return DynamoDBPersistenceLayer(table_name=table)


@cache
def domain_settings() -> "dict[str, DomainSettings]":
    """Each domain's fallback pages and app-link files (shortlink.domains.settings): read on first
    need, once per environment, from DOMAIN_SETTINGS (local) or the SSM parameter; a plain
    botocore client, as the redirect reads it."""
    from shortlink.domains.settings import parse_domain_settings

    config = settings()
    text = config.domain_settings
    if not text and config.domain_settings_parameter:
        from botocore.exceptions import BotoCoreError, ClientError

        from shortlink.adapters.botocore_clients import botocore_client

        ssm = botocore_client("ssm")
        try:
            text = ssm.get_parameter(Name=config.domain_settings_parameter)["Parameter"]["Value"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"domain settings not readable: {error}") from error
    return parse_domain_settings(text, config.short_domains)


@cache
def console_session_secret() -> bytes:
    """The key that signs console sessions (read on the first console request, then kept)."""
    from shortlink.secrets import read_secret

    config = settings()
    return read_secret(
        config.console_session_secret,
        config.console_session_secret_parameter,
        ("CONSOLE_SESSION_SECRET", "CONSOLE_SESSION_SECRET_PARAMETER"),
        "the console session secret",
    )


@cache
def webhook_endpoints() -> "DynamoEndpointStore":
    from shortlink.adapters.dynamodb.webhooks import DynamoEndpointStore

    config = settings()
    if not config.webhooks_table:
        raise ConfigurationError("WEBHOOKS_TABLE is not set")
    return DynamoEndpointStore(config.webhooks_table, config.home_region_name)


@cache
def webhook_queue() -> "SqsWebhookQueue | None":
    """The webhook queue, or None where none is configured (no event is then emitted)."""
    from shortlink.adapters.sqs.webhooks import SqsWebhookQueue

    url = settings().webhook_queue_url
    return SqsWebhookQueue(url) if url else None


def required_webhook_queue() -> "SqsWebhookQueue":
    """The webhook queue of the function that delivers from it: ConfigurationError without one."""
    queue = webhook_queue()
    if queue is None:
        raise ConfigurationError("WEBHOOK_QUEUE_URL is not set")
    return queue


@cache
def link_owners() -> "DynamoLinkOwners":
    from shortlink.adapters.dynamodb.webhooks import DynamoLinkOwners

    return DynamoLinkOwners(settings().links_table)


@cache
def webhook_sender() -> "HttpWebhookSender":
    from shortlink.adapters.http.webhooks import HttpWebhookSender

    return HttpWebhookSender(allow_loopback=settings().webhooks_allow_loopback)


@cache
def audit_trail() -> "DynamoAuditTrail":
    """The audit log, in the home region's table: written beside the changes it records, which
    are made at home (a link of a generated code away from home is the exception)."""
    from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
    from shortlink.settings.audit import AuditSettings

    audit = AuditSettings.from_env(os.environ)
    return DynamoAuditTrail(audit.required_table(), audit.retention_days, settings().home_region_name)


@cache
def audit_recorder() -> "AuditRecorder":
    """Writes a request's audit entries, then queues their audit.recorded events."""
    from shortlink.audit.recording import AuditRecorder

    return AuditRecorder(audit_trail(), webhook_queue())


def forget_cached_links() -> None:
    """A fresh environment's view of links: the next follow reads the table again."""
    cached_links.cache_clear()
    host_prefixes.clear()


def reset() -> None:
    """Forget every cached adapter and the settings (for tests that change the environment)."""
    forget_cached_links()
    for factory in (
        link_repository,
        cached_robots,
        importing_links,
        click_budget,
        api_key_store,
        memberships,
        person_sessions,
        invitations,
        people_settings,
        user_pool,
        invitation_messages,
        pool_keys,
        click_counter,
        click_stats,
        account_days,
        click_publisher,
        code_generator,
        idempotency_store,
        window_counter,
        visitor_salt_root,
        domain_settings,
        console_session_secret,
        webhook_endpoints,
        webhook_queue,
        link_owners,
        webhook_sender,
        audit_trail,
        audit_recorder,
        settings,
    ):
        factory.cache_clear()
