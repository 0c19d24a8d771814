"""The redirect's botocore reader and the pynamodb repository read and write the same items."""

from datetime import UTC, datetime, timedelta

import pytest

from shortlink.adapters.dynamodb.links_table import DynamoLinkRepository
from shortlink.adapters.dynamodb.redirect import DynamoLinkReader
from shortlink.config import settings
from shortlink.errors import StorageUnavailable
from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.links.previews import LinkPreview


def test_a_link_written_by_the_repository_reads_back_equal(aws):
    table = settings().links_table
    link = Link("Ab3_x-9", "https://example.com/ünïcode?q=1#f", "owner-1", datetime(2026, 3, 4, 5, 6, 7, 891011, UTC))
    DynamoLinkRepository(table).add(link)
    assert DynamoLinkReader(table).get(link.code) == link
    assert DynamoLinkRepository(table).get(link.code) == link


def test_an_unknown_code_is_none(aws):
    assert DynamoLinkReader(settings().links_table).get("nope") is None


def test_a_failed_read_is_a_storage_error(aws):
    with pytest.raises(StorageUnavailable):
        DynamoLinkReader("NoSuchTable").get("abc")


def test_every_option_of_a_link_reads_back_equal(aws):
    table = settings().links_table
    moment = datetime(2026, 3, 4, 5, 6, 7, 891011, UTC)
    link = Link(
        "Spring-Sale",
        "https://example.com/sale",
        "owner-1",
        moment,
        valid_from=moment + timedelta(days=1),
        expires_at=moment + timedelta(days=30),
        redirect_type=308,
        tags=("promo", "q2"),
        title="Spring sale ✿",
        custom_slug=True,
        private=False,
        max_clicks=100,
        forward_query=False,
        expired_url="https://example.com/ended",
        crawlable=True,
        preview=LinkPreview(title="Spring ✿", description="<sale>", image="https://example.com/i.png"),
        utm=Utm(source="news", medium="email", campaign="spring", term="shoes", content="hero"),
    )
    DynamoLinkRepository(table).add_with_slug(link, "spring-sale")
    assert DynamoLinkReader(table).get(link.code) == link
    assert DynamoLinkRepository(table).get(link.code) == link
