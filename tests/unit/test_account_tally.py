"""Clicks carry their link's owner and tags (once per link in a pack), and what a batch of the
click-stats stream adds to each account's and tag's day: its links' counter changes, its links
counted within bounds, sketches merged; other regions' and the subjects' own records ignored."""

import base64
import json
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.adapters.dynamodb.account_changes import account_changes, padded_sequence
from shortlink.adapters.dynamodb.account_days import coarsened
from shortlink.clicks.account_stats import account_report
from shortlink.clicks.account_tally import OTHER_LINKS, TOP_LINKS, LinkSlots, account_subject, account_subjects
from shortlink.clicks.day_counts import DayCounts
from shortlink.clicks.events import MAX_CLICK_TAGS, MAX_PACK_BYTES, ClickEvent, ClickPack
from shortlink.clicks.packing import form_packs
from shortlink.clicks.stats import stats_range
from shortlink.clicks.unique_visitors import REGISTERS, packed_registers
from shortlink.domains.model import ShortDomains

AT = datetime(2026, 11, 30, 14, 5, 0, tzinfo=UTC)


def click(n, code="abc", owner="0a1b2c3d4e5f", tags=("promo",), at=AT):
    return ClickEvent(f"id{n}", code, at, owner=owner, tags=tags)


def test_a_pack_names_each_links_owner_and_tags_once_and_reads_them_back_on_every_click():
    clicks = tuple(click(n) for n in range(1_000))
    pack = ClickPack("p1", clicks)
    body = pack.to_json()
    untagged = ClickPack("p1", tuple(ClickEvent(f"id{n}", "abc", AT) for n in range(1_000))).to_json()
    assert len(body) - len(untagged) == len(',"links":{"abc":{"owner":"0a1b2c3d4e5f","tags":["promo"]}}')
    assert json.loads(body)["links"] == {"abc": {"owner": "0a1b2c3d4e5f", "tags": ["promo"]}}
    assert ClickPack.from_message(body, message_id="m") == pack


def test_a_click_whose_link_was_retagged_within_its_pack_keeps_its_own_tags():
    pack = ClickPack("p1", (click(1), click(2, tags=("promo", "spring")), click(3, code="xyz", owner="ffffeeeedddd")))
    body = json.loads(pack.to_json())
    assert body["links"] == {
        "abc": {"owner": "0a1b2c3d4e5f", "tags": ["promo"]},
        "xyz": {"owner": "ffffeeeedddd", "tags": ["promo"]},
    }
    assert [c.get("tags") for c in body["clicks"]] == [None, ["promo", "spring"], None]
    assert ClickPack.from_message(json.dumps(body), message_id="m") == pack


@pytest.mark.parametrize(
    "owner",
    [
        {"owner": "key~x", "tags": []},
        {"owner": "", "tags": []},
        {"owner": "0a1b2c3d4e5f", "tags": ["has space"]},
        {"owner": "0a1b2c3d4e5f", "tags": ["t"] * (MAX_CLICK_TAGS + 1)},
        {"owner": "0a1b2c3d4e5f", "tags": "promo"},
        "0a1b2c3d4e5f",
    ],
)
def test_a_malformed_owner_or_tag_fails_its_pack(owner):
    body = json.loads(ClickPack("p1", (click(1),)).to_json())
    body["links"] = {"abc": owner}
    with pytest.raises(ValueError, match=r"owner|tag"):
        ClickPack.from_message(json.dumps(body), message_id="m")


def test_packs_of_the_longest_owned_clicks_fit_sqs():
    tags = tuple(f"{n}{'t' * 31}" for n in range(MAX_CLICK_TAGS))
    clicks = [click(n, code=f"{n:04d}{'s' * 60}", owner="o" * 64, tags=tags) for n in range(3_000)]
    packs = form_packs(clicks, [])
    assert len(packs) > 1
    for pack in packs:
        assert len(pack.to_json().encode()) <= MAX_PACK_BYTES
    assert [c for pack in packs for c in pack.clicks] == clicks


def change(sequence, code, bucket, old, new):
    """A stream record as Lambda hands it over."""
    stream = {"Keys": {"code": {"S": code}, "bucket": {"S": bucket}}, "SequenceNumber": sequence, "NewImage": new}
    return {"eventName": "MODIFY" if old else "INSERT", "dynamodb": {**stream, **({"OldImage": old} if old else {})}}


def owned(tags, **numbers):
    return {
        "owner": {"S": "0a1b2c3d4e5f"},
        "tags": {"L": [{"S": tag} for tag in tags]},
        **{name.replace("_", "#"): {"N": str(n)} for name, n in numbers.items()},
    }


def test_a_link_days_change_adds_its_difference_to_its_owners_account_and_each_tag():
    owner, day = "0a1b2c3d4e5f", "2026-11-30"
    bucket = f"c#{day}#us-east-1"
    records = [
        change("7", "abc", bucket, None, owned(["promo"], clicks=2, cc_DE=2)),
        change("12", "abc", bucket, owned(["promo"], clicks=2, cc_DE=2), owned(["promo"], clicks=5, cc_DE=3, cc_FR=2)),
        change("13", "abc", f"c#{day}#eu-west-1", None, owned(["promo"], clicks=9)),  # another region's
        change("14", account_subject(owner), bucket, None, {"clicks": {"N": "5"}}),  # the aggregator's own
        change("15", "abc#ledger", f"l#{day}#us-east-1#1", None, owned([])),
        change("16", "xyz", bucket, None, {"clicks": {"N": "1"}}),  # a click without an owner
    ]
    changes = account_changes(records, "us-east-1")
    assert set(changes.counters) == {(account_subject(owner), day), (account_subject(owner, "promo"), day)}
    first, second = changes.counters[(account_subject(owner), day)]
    assert (first.sequence, dict(first.counts)) == (padded_sequence("7"), {"clicks": 2, "cc#DE": 2})
    assert dict(second.counts) == {"clicks": 3, "cc#DE": 1, "cc#FR": 2}
    assert padded_sequence("9") < padded_sequence("10")
    assert len(padded_sequence("9")) == 40
    assert account_subjects(owner, ["promo", "promo"]) == ("key~0a1b2c3d4e5f", "key~0a1b2c3d4e5f~tag~promo")
    assert account_subject(owner, "promo") == "key~0a1b2c3d4e5f~tag~promo"  # no code can be either


def test_a_link_of_another_domain_counts_under_its_key_and_its_orphan_visits_stay_its_own():
    bucket = "c#2026-11-30#us-east-1"
    before = owned([], clicks=1)
    after = {**owned([], clicks=2, orphans=3, o_expired=3), "hot": {"BOOL": True}}
    [change_of_day] = account_changes([change("5", "go.example/abc", bucket, before, after)], "us-east-1").counters[
        (account_subject("0a1b2c3d4e5f"), "2026-11-30")
    ]
    assert (change_of_day.code, change_of_day.hot, dict(change_of_day.counts)) == (
        "go.example/abc",
        True,
        {"clicks": 1},
    )
    orphans_only = owned([], clicks=2, orphans=4, o_expired=4)
    assert account_changes([change("6", "abc", bucket, after, orphans_only)], "us-east-1").counters == {}


def test_visitor_sketches_are_merged_into_the_subjects_sketches_never_subtracted():
    registers = bytearray(REGISTERS)
    registers[3] = 5
    blob = base64.b64encode(packed_registers(registers)).decode()
    sketch = {**owned(["promo"]), "registers": {"B": blob}}
    inline = owned([], clicks=1)
    inline["visitors@14"] = {"NS": ["12345", "67890"]}
    changes = account_changes(
        [
            change("1", "abc", "s#2026-11-30#us-east-1", None, sketch),
            change("2", "abc#hours", "t#2026-11-30T14#us-east-1", None, sketch),
            change("3", "xyz", "c#2026-11-30#us-east-1", None, inline),
        ],
        "us-east-1",
    )
    subject = account_subject("0a1b2c3d4e5f")
    assert set(changes.sketches) == {
        (subject, "s#2026-11-30#us-east-1"),
        (account_subject("0a1b2c3d4e5f", "promo"), "s#2026-11-30#us-east-1"),
        (subject + "#hours", "t#2026-11-30T14#us-east-1"),
        (account_subject("0a1b2c3d4e5f", "promo") + "#hours", "t#2026-11-30T14#us-east-1"),
    }
    assert changes.sketches[(subject, "s#2026-11-30#us-east-1")][3] == 5
    assert sum(1 for value in changes.sketches[(subject + "#hours", "t#2026-11-30T14#us-east-1")] if value) >= 2


def test_a_days_open_dimensions_fold_into_other_when_its_item_is_full():
    assert coarsened(Counter({"rf#a.example": 2, "rf#b.example": 1, "cc#DE": 3, "clicks": 3})) == Counter(
        {"rf#(other)": 3, "cc#DE": 3, "clicks": 3}
    )


def test_an_account_day_counts_its_first_links_and_hot_ones_and_the_rest_together():
    slots = LinkSlots(["clicks", "lk#known", "cc#DE"])  # as the item holds them
    assert slots.codes == {"known"}
    named = [slots.slot(f"c{n}", hot=False) for n in range(TOP_LINKS + 5)]
    assert named[: TOP_LINKS - 1] == [f"c{n}" for n in range(TOP_LINKS - 1)]
    assert set(named[TOP_LINKS - 1 :]) == {OTHER_LINKS}
    assert slots.slot("known", hot=False) == "known"
    hot = [slots.slot(f"h{n}", hot=True) for n in range(TOP_LINKS + 5)]
    assert hot[:TOP_LINKS] == [f"h{n}" for n in range(TOP_LINKS)]
    assert set(hot[TOP_LINKS:]) == {OTHER_LINKS}
    assert len(slots.codes) == 2 * TOP_LINKS


def test_an_account_report_is_a_links_without_its_code_and_orphans_plus_its_top_links_and_their_domains():
    day = DayCounts("2026-11-30")
    counters = {"clicks": 7, "clicks@14": 7, "cc#DE": 7, "lk#abc": 4, "lk#go.example/xyz": 2, f"lk#{OTHER_LINKS}": 1}
    day.add_counters(counters)
    outside = DayCounts("2026-10-01")
    outside.add_counters({"clicks": 5, "clicks@14": 5, "lk#old": 5})
    span = stats_range(AT - timedelta(days=2), AT, "day", AT)
    report = account_report("promo", [outside, day], span, ShortDomains.parse("sho.rt,go.example").public_name)
    assert ("code" in report, "orphans" in report) == (False, False)
    assert (report["tag"], report["clicks"], report["top"]["country"]) == ("promo", 7, [{"value": "DE", "clicks": 7}])
    assert report["top_links"] == [
        {"code": "abc", "domain": "sho.rt", "clicks": 4},
        {"code": "xyz", "domain": "go.example", "clicks": 2},
    ]
    assert account_report(None, [], span, ShortDomains().public_name)["top_links"] == []
