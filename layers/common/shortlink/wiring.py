"""The composition root: the adapters each function uses, built from its settings on first use
and kept per environment, and those settings, the only reading of the environment.

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
from typing import TYPE_CHECKING, Any, TypeVar, cast

from shortlink.errors import ConfigurationError, StorageUnavailable
from shortlink.settings.addresses import AddressSettings
from shortlink.settings.clicks import ClickSettings
from shortlink.settings.codes import CodeSettings
from shortlink.settings.console import ConsoleSettings
from shortlink.settings.domains import ShortDomainSettings
from shortlink.settings.edge import EdgeSettings
from shortlink.settings.environment import Concern
from shortlink.settings.functions import function_settings
from shortlink.settings.link_cache import LinkCacheSettings
from shortlink.settings.people import PeopleSettings
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.settings.regions import RegionSettings
from shortlink.settings.resources import Resources
from shortlink.settings.webhooks import WebhookSettings

if TYPE_CHECKING:
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
    from shortlink.adapters.dynamodb.workspace_names import DynamoWorkspaceNames
    from shortlink.adapters.http.jwks import CachedJwks
    from shortlink.adapters.http.managed_login import HttpManagedLogin
    from shortlink.adapters.http.webhooks import HttpWebhookSender
    from shortlink.adapters.sqs.clicks import SqsClickPublisher
    from shortlink.adapters.sqs.webhooks import SqsWebhookQueue
    from shortlink.audit.recording import AuditRecorder
    from shortlink.clicks.packing import PackingRules
    from shortlink.codes.generator import CodeSource
    from shortlink.domains.model import ShortDomains
    from shortlink.domains.settings import DomainSettings
    from shortlink.people.access_tokens import PersonAccess
    from shortlink.people.ports import InvitationMessages
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.click_dispatch import ClickDispatcher
    from shortlink.redirect.click_events import ClickReading
    from shortlink.redirect.request import RequestReading
    from shortlink.redirect.responses import PlainRedirect
    from shortlink.redirect.robots import CachedRobots
    from shortlink.redirect.services import RedirectServices
    from shortlink.settings.sso import SsoSettings
    from shortlink.sso.signing_keys import SigningKeys


Model = TypeVar("Model", bound=Concern)


@cache
def function_set() -> dict[type[Concern], Concern]:
    """This function's settings by concern, read together from os.environ on first use: a
    variable the function requires that is missing or wrong fails then, naming it."""
    return function_settings(os.environ)


def settings_of(concern: type[Model]) -> Model:
    """This environment's settings of `concern` (one outside its function's set, as in tools,
    tests and the local stack, read on its own first use)."""
    read = function_set()
    model = read.get(concern)
    if model is None:
        model = read[concern] = concern.from_env(os.environ)
    return cast(Model, model)


def forget_settings() -> None:
    """Read the environment afresh on next use (for tests that change it)."""
    function_set.cache_clear()


def resources() -> Resources:
    """The tables and queues this function is told."""
    return settings_of(Resources)


def regions() -> RegionSettings:
    return settings_of(RegionSettings)


def short_domains() -> "ShortDomains":
    return settings_of(ShortDomainSettings).short_domains


def addresses() -> AddressSettings:
    return settings_of(AddressSettings)


@cache
def link_repository() -> "DynamoLinkRepository | AwayLinkRepository":
    """The API's links: away from home, the home region's table but for links whose code is
    unique by construction (adapters/dynamodb/away_links.py)."""
    from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository

    table, deployment = resources().links_table.value, regions()
    home = DynamoLinkRepository(table, deployment.home_region_name)
    # Random codes are unique only by the conditional put: made at home, where it decides.
    if not deployment.away_from_home or settings_of(CodeSettings).mode == "random":
        return home
    from shortlink.adapters.dynamodb.away_links import AwayLinkRepository

    return AwayLinkRepository(home, DynamoLinkRepository(table, deployment.region_name))


@cache
def importing_links() -> "DynamoImportingLinks":
    """The links repository of imports: it also claims imported records (shortlink.transfer.imports),
    in the home region's table."""
    from shortlink.adapters.dynamodb.imports import DynamoImportingLinks

    return DynamoImportingLinks(resources().links_table.value, regions().home_region_name)


@cache
def cached_links() -> "CachedLinks[PlainRedirect]":
    """The redirect's view of links: this environment's cache in front of a plain GetItem, which
    keeps each plain link's ready-made redirect."""
    from shortlink.adapters.dynamodb.link_reader import DynamoLinkReader
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.responses import plain_redirect

    cache = settings_of(LinkCacheSettings)
    return CachedLinks(
        DynamoLinkReader(resources().links_table.value),
        max_entries=cache.max_entries,
        ttl_seconds=cache.ttl_seconds,
        negative_ttl_seconds=cache.negative_ttl_seconds,
        clock=time.monotonic,
        prepare=plain_redirect,
    )


@cache
def cached_robots() -> "CachedRobots":
    """The redirect's robots.txt: the crawlable links' codes, read at most once per TTL."""
    from shortlink.adapters.dynamodb.link_reader import DynamoCrawlableCodes
    from shortlink.redirect.robots import CachedRobots

    return CachedRobots(DynamoCrawlableCodes(resources().links_table.value), time.monotonic)


def load_link_reader() -> None:
    """Import the redirect's link reader (botocore) now: the redirect calls this at init."""
    import shortlink.adapters.dynamodb.link_reader  # noqa: F401


@cache
def request_reading() -> "RequestReading":
    """How the redirect reads its requests: the edge's secret and the short domains."""
    from shortlink.redirect.request import RequestReading

    return RequestReading(settings_of(EdgeSettings).secret, short_domains())


@cache
def redirect_services(dispatcher: "ClickDispatcher") -> "RedirectServices":
    """What the redirect's walk and pages call (shortlink.redirect.services), with `dispatcher`,
    which the redirect made at init; its settings read once, its adapters made on first use."""
    from shortlink.redirect.services import RedirectServices

    return RedirectServices(
        links=cached_links,
        dispatcher=dispatcher,
        reading=request_reading(),
        unlock_attempts_per_window=settings_of(RateLimitSettings).unlock_attempts_per_window,
        click_budget=click_budget,
        attempt_log=window_counter,
        domain_settings=domain_settings,
        robots=cached_robots,
    )


@cache
def click_reading() -> "ClickReading":
    """What the redirect's clicks are read with after the response (shortlink.redirect.click_events)."""
    from shortlink.clicks.repeats import RecentFollows
    from shortlink.redirect.click_events import ClickReading, open_country_database

    clicks = settings_of(ClickSettings)
    follows = RecentFollows(clicks.repeat_window_seconds)
    return ClickReading(follows, open_country_database(clicks.country_database))


@cache
def packing_rules() -> "PackingRules":
    """How long and how many of its clicks the redirect holds before it sends them in one pack."""
    from shortlink.clicks.packing import PackingRules

    clicks = settings_of(ClickSettings)
    return PackingRules(clicks.pack_window_ms / 1000, clicks.pack_max_clicks)


@cache
def click_budget() -> "DynamoClickBudget":
    """The redirect's exact counter for links with max_clicks, in the home region's table: one
    cross-region UpdateItem per such follow away from home."""
    from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget

    return DynamoClickBudget(resources().links_table.value, regions().home_region_name)


@cache
def api_key_store() -> "DynamoApiKeyStore":
    from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore

    deployment = regions()
    return DynamoApiKeyStore(resources().api_keys_table.value, deployment.home_region_name, deployment.region_name)


@cache
def memberships() -> "DynamoMemberships":
    """Workspaces' members, beside the keys in the API keys table (adapters/dynamodb/memberships.py)."""
    from shortlink.adapters.dynamodb.memberships import DynamoMemberships

    deployment = regions()
    return DynamoMemberships(resources().api_keys_table.value, deployment.home_region_name, deployment.region_name)


@cache
def person_sessions() -> "DynamoPersonSessions":
    from shortlink.adapters.dynamodb.memberships import DynamoPersonSessions

    return DynamoPersonSessions(resources().api_keys_table.value, regions().home_region_name)


@cache
def workspace_names() -> "DynamoWorkspaceNames":
    """Workspaces' names, beside their members in the API keys table (adapters/dynamodb/workspace_names.py)."""
    from shortlink.adapters.dynamodb.workspace_names import DynamoWorkspaceNames

    deployment = regions()
    return DynamoWorkspaceNames(resources().api_keys_table.value, deployment.home_region_name, deployment.region_name)


@cache
def invitations() -> "DynamoInvitations":
    from shortlink.adapters.dynamodb.memberships import DynamoInvitations

    return DynamoInvitations(resources().api_keys_table.value, regions().home_region_name)


def people_settings() -> PeopleSettings:
    return settings_of(PeopleSettings)


@cache
def user_pool() -> "CognitoUserPool":
    from shortlink.adapters.cognito.user_pool import CognitoUserPool

    config = people_settings()
    if not config.enabled:
        raise ConfigurationError("PEOPLE_USER_POOL_ID and PEOPLE_CLIENT_ID are not set")
    return CognitoUserPool(config.user_pool_id, config.client_id)


@cache
def invitation_messages() -> "tuple[InvitationMessages, ...]":
    """The ways invitations are sent, tried in turn until one reaches the person: printed
    (`make dev`); else Cognito's email (the stack's own pool, whose trigger writes it), then SES
    from the configured address. None left: the inviter is shown the link to pass on."""
    from shortlink.adapters.cognito.invitation_accounts import CognitoInvitationMessages
    from shortlink.adapters.cognito.invitation_messages import PrintedInvitationMessages, SesInvitationMessages

    config = people_settings()
    if config.print_invitations:
        return (PrintedInvitationMessages(),)
    ways: list[InvitationMessages] = []
    if config.pool_sends_invitations and config.enabled:
        ways.append(CognitoInvitationMessages(config.user_pool_id, workspace_names()))
    if config.invitations_from:
        ways.append(SesInvitationMessages(config.invitations_from))
    return tuple(ways)


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

    return DynamoClickCounter(resources().click_stats_table.value)


@cache
def click_stats() -> "DynamoClickStatsReader":
    """The stats reads (the API's, the console's, the exports' and the account days')."""
    from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader

    return DynamoClickStatsReader(resources().click_stats_table.value)


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

    return SqsClickPublisher(resources().clicks_queue.value)


@cache
def code_generator() -> "CodeSource":
    # Imported here: only the create function generates codes; the redirect's cold start
    # should not pay for the permutation and the key loader.
    from shortlink.adapters.dynamodb.id_counter import DynamoCounterStore
    from shortlink.codes.generator import CodeGenerator, RandomCodeGenerator
    from shortlink.codes.id_blocks import IdBlockAllocator
    from shortlink.codes.partitions import IdPartition, counter_name
    from shortlink.codes.permutation_key import load_permutation_key

    codes = settings_of(CodeSettings)
    if codes.mode == "random":
        return RandomCodeGenerator(codes.length)
    # Several regions: this region's counter item and id partition (no cross-region call).
    deployment = regions()
    region, partition = (
        (deployment.region, IdPartition(deployment.region_index)) if deployment.several_regions else (None, None)
    )
    counters = DynamoCounterStore(resources().counters_table.value, counter_name(region))
    key = load_permutation_key(codes.permutation_key, codes.permutation_key_parameter)
    return CodeGenerator(IdBlockAllocator(counters, codes.id_block_size), key, codes.length, partition)


@cache
def visitor_salt_root() -> bytes:
    """The secret root of the daily visitor-hash salt (read after a response, then kept)."""
    from shortlink.clicks.visitor_hashes import load_salt_root

    clicks = settings_of(ClickSettings)
    return load_salt_root(clicks.visitor_salt, clicks.visitor_salt_parameter)


@cache
def window_counter() -> "DynamoWindowCounter":
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter

    deployment = regions()
    # Several regions: windows of this region's own (a global table would lose concurrent ADDs).
    return DynamoWindowCounter(resources().counters_table.value, deployment.region_name)


@cache
def idempotency_store() -> Any:
    """Powertools' DynamoDB persistence layer for idempotent creates."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(table_name=resources().idempotency_table.value)


@cache
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


@cache
def console_session_secret() -> bytes:
    """The key that signs console sessions (read on the first console request, then kept)."""
    from shortlink.secrets import read_secret

    console = settings_of(ConsoleSettings)
    return read_secret(
        console.session_secret,
        console.session_secret_parameter,
        ("CONSOLE_SESSION_SECRET", "CONSOLE_SESSION_SECRET_PARAMETER"),
        "the console session secret",
    )


@cache
def webhook_endpoints() -> "DynamoEndpointStore":
    from shortlink.adapters.dynamodb.webhooks import DynamoEndpointStore

    return DynamoEndpointStore(resources().webhooks_table.value, regions().home_region_name)


@cache
def webhook_queue() -> "SqsWebhookQueue | None":
    """The webhook queue, or None where none is configured (no event is then emitted)."""
    from shortlink.adapters.sqs.webhooks import SqsWebhookQueue

    queue = resources().webhook_queue
    return SqsWebhookQueue(queue.value) if queue.given else None


def required_webhook_queue() -> "SqsWebhookQueue":
    """The webhook queue of the function that delivers from it: ConfigurationError without one."""
    queue = webhook_queue()
    if queue is None:
        raise ConfigurationError("WEBHOOK_QUEUE_URL is not set")
    return queue


@cache
def link_owners() -> "DynamoLinkOwners":
    from shortlink.adapters.dynamodb.webhooks import DynamoLinkOwners

    return DynamoLinkOwners(resources().links_table.value)


@cache
def webhook_sender() -> "HttpWebhookSender":
    from shortlink.adapters.http.webhooks import HttpWebhookSender

    return HttpWebhookSender(allow_loopback=settings_of(WebhookSettings).allow_loopback)


@cache
def sso_settings() -> "SsoSettings":
    """Single sign-on's settings (off unless SSO_PROVIDER_NAME names an identity provider)."""
    from shortlink.settings.sso import SsoSettings

    return settings_of(SsoSettings)


@cache
def managed_login() -> "HttpManagedLogin":
    """The user pool's managed login: the SSO callback's token endpoint and signing keys."""
    from shortlink.adapters.http.managed_login import HttpManagedLogin

    config = sso_settings()
    return HttpManagedLogin(config.login_url, config.client_id, config.callback_url)


@cache
def sso_signing_keys() -> "SigningKeys":
    """The keys that sign the pool's ID tokens, kept per environment (shortlink.sso.signing_keys);
    read from SSO_JWKS_URL, the pool's own key set unless the local stand-in's."""
    from shortlink.adapters.http.jwks import CachedJwks
    from shortlink.sso.signing_keys import SigningKeys

    return SigningKeys(CachedJwks(sso_settings().jwks_url).keys)


@cache
def audit_trail() -> "DynamoAuditTrail":
    """The audit log, in the home region's table: written beside the changes it records, which
    are made at home (a link of a generated code away from home is the exception)."""
    from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
    from shortlink.settings.audit import AuditSettings

    audit = settings_of(AuditSettings)
    return DynamoAuditTrail(audit.required_table(), audit.retention_days, regions().home_region_name)


@cache
def audit_recorder() -> "AuditRecorder":
    """Writes a request's audit entries, then queues their audit.recorded events."""
    from shortlink.audit.recording import AuditRecorder

    return AuditRecorder(audit_trail(), webhook_queue())


def forget_cached_links() -> None:
    """A fresh environment's view of links: the next follow reads the table again."""
    cached_links.cache_clear()


def reset() -> None:
    """Forget every cached adapter and the settings (for tests that change the environment)."""
    forget_cached_links()
    for factory in (
        link_repository,
        cached_robots,
        request_reading,
        redirect_services,
        click_reading,
        packing_rules,
        importing_links,
        click_budget,
        api_key_store,
        memberships,
        person_sessions,
        invitations,
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
        sso_settings,
        managed_login,
        sso_signing_keys,
        audit_trail,
        audit_recorder,
    ):
        factory.cache_clear()
    forget_settings()
