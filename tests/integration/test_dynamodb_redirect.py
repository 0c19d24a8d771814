"""The redirect's botocore reader and the pynamodb repository read and write the same items."""

import pytest

from shortlink.adapters.dynamodb.link_reader import DynamoLinkReader
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.errors import StorageUnavailable
from shortlink.wiring import resources
from tests.links import EVERY_OPTION, PLAIN


def test_a_link_written_by_the_repository_reads_back_equal(aws):
    table = resources().links_table.value
    link = PLAIN
    DynamoLinkRepository(table).add(link)
    assert DynamoLinkReader(table).get(link.code) == link
    assert DynamoLinkRepository(table).get(link.code) == link


def test_an_unknown_code_is_none(aws):
    assert DynamoLinkReader(resources().links_table.value).get("nope") is None


def test_a_failed_read_is_a_storage_error(aws):
    with pytest.raises(StorageUnavailable):
        DynamoLinkReader("NoSuchTable").get("abc")


def test_every_option_of_a_link_reads_back_equal(aws):
    table = resources().links_table.value
    DynamoLinkRepository(table).add_with_slug(EVERY_OPTION, "spring-sale")
    assert DynamoLinkReader(table).get(EVERY_OPTION.key) == EVERY_OPTION
    assert DynamoLinkRepository(table).get(EVERY_OPTION.key) == EVERY_OPTION
