"""The one codec of links-table items, and pynamodb's LinkItem declared from it."""

from dataclasses import fields, replace
from datetime import timedelta

import pytest

from shortlink.adapters.dynamodb.link_items import ATTRIBUTES, link_from_item, link_item, stored_attributes
from shortlink.adapters.dynamodb.link_store import LinkItem
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link
from tests.links import EVERY_OPTION, MOMENT, PLAIN


def test_every_field_of_a_link_has_its_attribute():
    # A field added to Link without a way to store it fails here, not in production
    assert set(ATTRIBUTES) | {"code", "domain"} == {field.name for field in fields(Link)}


@pytest.mark.parametrize("link", [PLAIN, EVERY_OPTION], ids=["plain", "every option"])
def test_each_attribute_written_is_declared_by_linkitem_with_its_type(link):
    declared = {name: attribute.attr_type for name, attribute in LinkItem.get_attributes().items()}
    item = link_item(link)
    assert {name: next(iter(value)) for name, value in item.items()} == {name: declared[name] for name in item}


@pytest.mark.parametrize("link", [PLAIN, EVERY_OPTION], ids=["plain", "every option"])
def test_pynamodb_reads_and_writes_the_codecs_items_unchanged(link):
    item = link_item(link)
    assert LinkItem.from_raw_data(item).serialize() == item
    assert link_from_item(item) == link


def test_a_plain_link_stores_only_what_it_needs():
    assert set(link_item(PLAIN)) == {"code", "url", "owner", "created_at", "redirect_type"}
    assert link_item(EVERY_OPTION)["code"] == {"S": "go.example.com/Spring-Sale"}


def test_a_deleted_crawlable_link_is_stored_out_of_the_crawlable_index():
    crawlable = replace(PLAIN, crawlable=True)
    assert link_item(crawlable)["crawlable_key"] == {"S": "crawlable"}
    deleted = link_item(replace(crawlable, deleted_at=MOMENT))
    assert "crawlable_key" not in deleted
    assert deleted["crawlable"] == {"BOOL": True}  # kept: a restore puts it back in robots.txt


def test_an_edit_sets_the_derived_attributes_with_their_field_and_clears_them_with_it():
    expires = MOMENT + timedelta(days=1)
    assert stored_attributes({"expires_at": expires, "crawlable": True}) == {
        "expires_at": {"S": "2026-03-05T05:06:07.891011+0000"},
        "expires_at_epoch": {"N": str(int((expires + timedelta(days=30)).timestamp()))},
        "crawlable": {"BOOL": True},
        "crawlable_key": {"S": "crawlable"},
    }
    cleared = {"expires_at": None, "crawlable": False, "forward_query": True, "tags": ()}
    assert stored_attributes(cleared) == dict.fromkeys(
        ["expires_at", "expires_at_epoch", "crawlable", "crawlable_key", "forward_query", "tags"]
    )


def test_an_item_without_created_at_is_not_a_link():
    with pytest.raises(StorageUnavailable, match="no created_at"):
        link_from_item({"code": {"S": "abc"}, "url": {"S": "https://a.example"}, "owner": {"S": "o"}})


def test_linkitem_declares_each_attribute_of_the_codec_and_only_the_key_and_derived_ones_besides():
    # A field added to the codec reaches pynamodb's declaration without a second edit
    declared = set(LinkItem.get_attributes())
    assert declared - set(ATTRIBUTES) == {"code", "domain", "expires_at_epoch", "clicks_used", "crawlable_key"}
    assert set(ATTRIBUTES) <= declared
