"""The audit log's DynamoDB adapter, on moto and on dynalite (which refuses what DynamoDB refuses
and moto lets pass): entries appended under their workspace, read newest first a page at a time,
by time range, kind of target or one target, and kept for the retention's days."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
from shortlink.audit.model import RecordedActor, new_entry
from shortlink.audit.queries import AuditQuery, InvalidAuditQuery
from shortlink.errors import StorageUnavailable
from tests.integration.dynalite_tables import dynalite, fresh_table

TABLE = "AuditLogTable"
START = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
ACTOR = RecordedActor("key", "0123456789ab", "ci")

__all__ = ["dynalite"]  # a fixture used by name


@pytest.fixture(params=["moto", "dynalite"])
def trail(request, template, monkeypatch) -> DynamoAuditTrail:
    """The adapter over a fresh table created from template.yaml, in moto or in dynalite."""
    fresh_table(request, template, monkeypatch, TABLE)
    return DynamoAuditTrail(TABLE, 30)


def entry(minutes: int, action="link.edited", target="abc1234", workspace="ws1"):
    return new_entry(workspace, START + timedelta(minutes=minutes), ACTOR, action, target, "h" * 32, f"req-{minutes}")


def test_entries_come_back_newest_first_a_page_at_a_time_whole(trail):
    # Given six entries of one workspace and one of another
    written = [entry(minutes) for minutes in range(6)]
    trail.add(written)
    trail.add([entry(10, workspace="ws2")])
    # When they are read three at a time
    first = trail.page("ws1", AuditQuery(limit=3))
    second = trail.page("ws1", AuditQuery(limit=3, cursor=first.next_cursor))
    # Then the pages hold the workspace's entries, newest first, each as it was written
    assert [e.id for e in first.entries + second.entries] == [e.id for e in reversed(written)]
    assert first.entries[0] == written[-1]
    assert second.next_cursor is None or trail.page("ws1", AuditQuery(cursor=second.next_cursor)).entries == []


def test_a_time_range_takes_since_inclusive_and_until_exclusive_to_the_millisecond(trail):
    trail.add([entry(minutes) for minutes in range(5)])
    since, until = START + timedelta(minutes=1), START + timedelta(minutes=3)
    found = trail.page("ws1", AuditQuery(since=since, until=until)).entries
    assert [e.at for e in found] == [START + timedelta(minutes=2), START + timedelta(minutes=1)]
    assert [e.at for e in trail.page("ws1", AuditQuery(since=START + timedelta(minutes=4))).entries] == [
        START + timedelta(minutes=4)
    ]
    assert len(trail.page("ws1", AuditQuery(until=START + timedelta(minutes=1))).entries) == 1


def test_a_kind_of_target_or_one_target_selects_its_entries_only(trail):
    trail.add([entry(0, "key.created", "0123456789ab"), entry(1, target="abc1234"), entry(2, target="zzz9999")])
    theirs = entry(5, workspace="ws2")
    trail.add([entry(3, "link.deleted", "abc1234"), entry(4, "webhook.created", "ep_1"), theirs])
    links = trail.page("ws1", AuditQuery(target_kind="link", limit=2))
    more = trail.page("ws1", AuditQuery(target_kind="link", limit=2, cursor=links.next_cursor))
    assert [e.target.id for e in links.entries + more.entries] == ["abc1234", "zzz9999", "abc1234"]
    one = trail.page("ws1", AuditQuery(target_kind="link", target_id="abc1234")).entries
    assert [e.action for e in one] == ["link.deleted", "link.edited"]
    # Another workspace's link of the same code is not that target
    assert trail.page("ws2", AuditQuery(target_kind="link", target_id="abc1234")).entries == [theirs]


def test_a_cursor_of_another_workspace_or_not_ours_is_refused(trail):
    trail.add([entry(minutes) for minutes in range(3)])
    trail.add([entry(minutes, workspace="ws2") for minutes in range(3)])
    theirs = trail.page("ws2", AuditQuery(limit=1)).next_cursor
    assert theirs is not None
    for cursor in (theirs, "bm90IG91cnM", "e30"):
        with pytest.raises(InvalidAuditQuery) as refused:
            trail.page("ws1", AuditQuery(cursor=cursor))
        assert refused.value.parameter == "cursor"


def test_an_entry_expires_after_the_retention_and_is_never_written_over(trail):
    written = entry(0)
    trail.add([written])
    client = boto3.client("dynamodb")
    [item] = client.scan(TableName=TABLE)["Items"]
    assert int(item["expires_at_epoch"]["N"]) == int((written.at + timedelta(days=30)).timestamp())
    # Every attribute under its short stored name: nothing else stored
    assert set(item) == {"ws", "sk", "tg", "at", "ak", "ai", "al", "ac", "tk", "ti", "cl", "rq", "expires_at_epoch"}
    # The same id again (a random collision) is refused, never put over the first
    with pytest.raises(StorageUnavailable):
        trail.add([replace(written, action="link.deleted")])
    assert trail.page("ws1", AuditQuery()).entries == [written]


def test_the_local_stack_makes_the_table_from_the_template_and_its_regions_replicate_it(template):
    from tools.developers.devstack.regions import replicated_tables
    from tools.developers.devstack.resources import tables_of

    assert tables_of(template)[TABLE]["KeySchema"] == [
        {"AttributeName": "ws", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert TABLE in replicated_tables(template)
