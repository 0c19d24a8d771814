"""The API's and the console's links: the repository of writes, the imports' claims, the code
generator, the idempotency of creates and the QR codes' styles."""

from typing import TYPE_CHECKING, Any

from shortlink.settings.codes import CodeSettings
from shortlink.wiring.environment import regions, resources, settings_of
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.away_links import AwayLinkRepository
    from shortlink.adapters.dynamodb.imports import DynamoImportingLinks
    from shortlink.adapters.dynamodb.link_batch import DynamoLinkBatch
    from shortlink.adapters.dynamodb.link_lists import DynamoLinkLists
    from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
    from shortlink.adapters.dynamodb.qr_styles import DynamoQrStyles
    from shortlink.codes.generator import CodeSource


@factory
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


@factory
def link_lists() -> "DynamoLinkLists":
    """The console list's reads over a workspace's newest links, in the home region's table (as
    the repository's list)."""
    from shortlink.adapters.dynamodb.link_lists import DynamoLinkLists

    return DynamoLinkLists(resources().links_table.value, regions().home_region_name)


@factory
def importing_links() -> "DynamoImportingLinks":
    """The links repository of imports: it also claims imported records (shortlink.transfer.imports),
    in the home region's table."""
    from shortlink.adapters.dynamodb.imports import DynamoImportingLinks

    return DynamoImportingLinks(resources().links_table.value, regions().home_region_name)


def link_batch() -> "DynamoLinkBatch":
    """A new batch of one bulk change (not kept: it holds that request's writes), in the home
    region's links table and audit log, which its transaction writes together."""
    from shortlink.adapters.dynamodb.link_batch import DynamoLinkBatch
    from shortlink.wiring.audit import audit_trail

    return DynamoLinkBatch(resources().links_table.value, regions().home_region_name, audit_trail())


@factory
def code_generator() -> "CodeSource":
    """The codes of new links: sequence ids through the keyed permutation, or random codes."""
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


@factory
def idempotency_store() -> Any:
    """Powertools' DynamoDB persistence layer for idempotent creates."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(table_name=resources().idempotency_table.value)


@factory
def qr_styles() -> "DynamoQrStyles":
    """The QR codes' saved styles, beside the workspace's items in the API keys table (home region)."""
    from shortlink.adapters.dynamodb.qr_styles import DynamoQrStyles

    return DynamoQrStyles(resources().api_keys_table.value, regions().home_region_name)
