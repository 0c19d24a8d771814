"""Last writer wins as the local stack's replicator decides it (tools.developers.devstack.replication): the
same winner in every region, whatever order the regions' streams are read in."""

import itertools
from typing import Any

from tools.developers.devstack.replication import Change, Ledger

REGIONS = ["us-east-1", "eu-central-1", "ap-southeast-1"]
TABLE = "LinksTable"
KEYS = {"code": {"S": "abc"}}
sequence = itertools.count(100)


def record(url: str | None, written_s: float) -> dict[str, Any]:
    data: dict[str, Any] = {
        "Keys": KEYS,
        "ApproximateCreationDateTime": written_s,
        "SequenceNumber": str(next(sequence)),
    }
    if url is not None:
        data["NewImage"] = {**KEYS, "url": {"S": url}}
    return {"eventName": "MODIFY" if url else "REMOVE", "dynamodb": data}


def winner_everywhere(ledger: Ledger, changes: list[Change]) -> set[str]:
    """Offer every change to every other region, in the order given; what each region ends with."""
    ends = {}
    for region in REGIONS:
        taken = [c for c in changes if c.origin == region or ledger.newer_than_held(region, c)]
        ends[region] = max(taken, key=lambda c: c.version).image["url"]["S"]  # type: ignore[index]
    return set(ends.values())


def test_two_writes_in_the_same_millisecond_resolve_by_region_in_every_order():
    for first, second in (("eu-central-1", "ap-southeast-1"), ("ap-southeast-1", "eu-central-1")):
        ledger = Ledger(REGIONS, lag_seconds=0.3)
        a, _ = ledger.observe(first, TABLE, record(f"https://example.com/{first}", 1000.0))
        b, _ = ledger.observe(second, TABLE, record(f"https://example.com/{second}", 1000.0))
        assert a is not None
        assert b is not None
        # ap-southeast-1 comes after eu-central-1 in REGIONS: it wins a tie wherever it is read from
        assert winner_everywhere(ledger, [a, b]) == {"https://example.com/ap-southeast-1"}


def test_a_change_is_due_the_lag_after_it_was_written():
    ledger = Ledger(REGIONS, lag_seconds=0.3)
    change, _ = ledger.observe("us-east-1", TABLE, record("https://example.com/", 1000.0))
    assert change is not None
    assert change.due == 1000.3


def test_the_replicators_own_write_is_not_offered_again():
    ledger = Ledger(REGIONS, lag_seconds=0.3)
    change, _ = ledger.observe("us-east-1", TABLE, record("https://example.com/", 1000.0))
    assert change is not None
    assert ledger.newer_than_held("eu-central-1", change)
    ledger.plan("eu-central-1", change)
    echo, writes = ledger.observe("eu-central-1", TABLE, record("https://example.com/", 1000.4))
    assert (echo, writes) == (None, [])
    assert not ledger.newer_than_held("eu-central-1", change)


def test_a_newer_local_write_that_a_replicated_put_overwrote_is_put_back():
    # Given an older write from us-east-1 being put in eu-central-1
    ledger = Ledger(REGIONS, lag_seconds=0.3)
    older, _ = ledger.observe("us-east-1", TABLE, record("https://example.com/older", 1000.0))
    assert older is not None
    ledger.plan("eu-central-1", older)
    # When eu-central-1's stream shows a newer local write first, then the put over it
    newer, _ = ledger.observe("eu-central-1", TABLE, record("https://example.com/newer", 1000.2))
    echo, writes = ledger.observe("eu-central-1", TABLE, record("https://example.com/older", 1000.5))
    # Then the newer write is offered to the others and put back in its own region
    assert newer is not None
    assert echo is None
    assert [(write.region, write.change) for write in writes] == [("eu-central-1", newer)]
    assert ledger.newer_than_held("us-east-1", newer)


def test_a_local_write_in_the_millisecond_of_what_its_region_holds_is_newer():
    ledger = Ledger(REGIONS, lag_seconds=0.3)
    replicated, _ = ledger.observe("ap-southeast-1", TABLE, record("https://example.com/replicated", 1000.0))
    assert replicated is not None
    ledger.plan("us-east-1", replicated)
    ledger.observe("us-east-1", TABLE, record("https://example.com/replicated", 1000.0))
    local, _ = ledger.observe("us-east-1", TABLE, record("https://example.com/local", 1000.0))
    assert local is not None
    assert local.version > replicated.version
    assert winner_everywhere(ledger, [replicated, local]) == {"https://example.com/local"}


def test_a_delete_is_a_change_like_any_other():
    ledger = Ledger(REGIONS, lag_seconds=0.3)
    written, _ = ledger.observe("us-east-1", TABLE, record("https://example.com/", 1000.0))
    deleted, _ = ledger.observe("us-east-1", TABLE, record(None, 1000.1))
    assert written is not None
    assert deleted is not None
    assert deleted.image is None
    assert deleted.version > written.version
