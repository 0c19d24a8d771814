"""Clicks carry their link's owner and tags (once per link in a pack), and what a batch adds to
each account's and tag's day: the same parts as a link's, its links counted within bounds."""

import json
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.account_stats import account_report
from shortlink.account_tally import (
    OTHER_LINKS,
    TOP_LINKS,
    LinkSlots,
    account_subject,
    account_subjects,
    parts_per_account_day,
)
from shortlink.click_packing import form_packs
from shortlink.click_tally import PackPart, counter_increments
from shortlink.clicks import MAX_CLICK_TAGS, MAX_PACK_BYTES, ClickEvent, ClickPack
from shortlink.day_counts import DayCounts
from shortlink.stats import stats_range

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


def test_a_click_counts_for_its_owners_account_and_each_of_its_tags_and_a_pack_twice_counts_once():
    other = click(3, code="xyz", owner="ffffeeeedddd", tags=())
    first = ClickPack("p1", (click(1), click(2, tags=("promo", "spring")), other))
    parts = parts_per_account_day([first, first, ClickPack("p2", (click(4, owner=""),))])
    owner = "0a1b2c3d4e5f"
    assert {key: sorted(parts[key]) for key in parts} == {
        (account_subject(owner), "2026-11-30"): ["p1"],
        (account_subject(owner, "promo"), "2026-11-30"): ["p1"],
        (account_subject(owner, "spring"), "2026-11-30"): ["p1"],
        (account_subject("ffffeeeedddd"), "2026-11-30"): ["p1"],
    }
    assert len(parts[(account_subject(owner), "2026-11-30")]["p1"].clicks) == 2
    assert account_subjects(other) == ("key~ffffeeeedddd",)
    assert account_subject(owner, "promo") == "key~0a1b2c3d4e5f~tag~promo"  # no code can be either


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
    part = slots.slotted(PackPart("p1", (click(1, code="c0"), click(2, code="late"))), frozenset())
    assert [c.code for c in part.clicks] == ["c0", OTHER_LINKS]
    assert part.digest == PackPart("p1", ()).digest  # recorded in the ledger as the pack it is


def test_an_account_days_counters_count_each_link_too():
    counts = counter_increments([click(1), click(2), click(3, code="xyz")], by_link=True)
    assert (counts["clicks"], counts["lk#abc"], counts["lk#xyz"]) == (3, 2, 1)
    assert not any(name.startswith("lk#") for name in counter_increments([click(1)]))


def test_an_account_report_is_a_links_without_its_code_plus_its_top_links():
    day = DayCounts("2026-11-30")
    day.add_counters({"clicks": 7, "clicks@14": 7, "cc#DE": 7, "lk#abc": 4, "lk#xyz": 2, f"lk#{OTHER_LINKS}": 1})
    outside = DayCounts("2026-10-01")
    outside.add_counters({"clicks": 5, "clicks@14": 5, "lk#old": 5})
    span = stats_range(AT - timedelta(days=2), AT, "day", AT)
    report = account_report("promo", [outside, day], span)
    assert "code" not in report
    assert (report["tag"], report["clicks"], report["top"]["country"]) == ("promo", 7, [{"value": "DE", "clicks": 7}])
    assert report["top_links"] == [{"code": "abc", "clicks": 4}, {"code": "xyz", "clicks": 2}]
    assert account_report(None, [], span)["top_links"] == []
