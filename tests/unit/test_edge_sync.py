"""The sync of links into the edge's KeyValueStore: plans within CloudFront's limits, deletes
first, the capacity rule and the reconciliation's repairs (against the local store's own checks)."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shortlink.domains.model import ShortDomains
from shortlink.edge.entries import MAX_VALUE_BYTES, edge_entry
from shortlink.edge.store_plan import (
    MAX_KEYS_PER_UPDATE,
    MAX_STORE_BYTES,
    EntryChange,
    entry_bytes,
    stream_updates,
)
from shortlink.edge.sync import entry_change, push_link_changes, reconcile
from shortlink.links.model import Link
from tests.fakes import InMemoryEdgeStore, RecentClicksOf

NOW = datetime(2026, 12, 6, 12, tzinfo=UTC)
# Without Domains a link's key is its bare code (shortlink.edge.entries.edge_key).
NO_DOMAINS = ShortDomains()


def link(code: str, url: str = "https://example.com/", **options: object) -> Link:
    return Link(code, url, "owner", NOW, **options)  # type: ignore[arg-type]


def test_an_edit_a_delete_and_an_expiry_reach_the_store_deletes_first():
    # Given a store holding three links
    store = InMemoryEdgeStore()
    links = [link("a"), link("b"), link("c")]
    push_link_changes(store, [(None, item) for item in links], NO_DOMAINS, NOW)
    assert set(store.entries()) == {"a", "b", "c"}
    store.updates.clear()
    # When one is edited, one deleted and one expires (its stream record: the TTL's removal)
    edited = replace(links[0], url="https://example.com/new")
    deleted = replace(links[1], deleted_at=NOW)
    push_link_changes(store, [(links[0], edited), (links[1], deleted), (links[2], None)], NO_DOMAINS, NOW)
    # Then the leaving keys went in the first call, the edit after them
    assert [update.deletes for update in store.updates] == [("b", "c"), ()]
    assert store.updates[1].puts == (("a", edge_entry(edited, NOW)),)
    assert store.entries() == {"a": edge_entry(edited, NOW)}


def test_a_link_the_edge_never_answered_makes_no_call():
    store = InMemoryEdgeStore()
    protected = link("p", password_hash="x")
    assert entry_change(None, protected, NO_DOMAINS, NOW) is None
    edited = replace(protected, url="https://x.org/")
    assert push_link_changes(store, [(None, protected), (protected, edited)], NO_DOMAINS, NOW) == []


def test_a_link_that_becomes_ineligible_leaves_the_store():
    before = link("m")
    assert entry_change(before, replace(before, max_clicks=5), NO_DOMAINS, NOW) == EntryChange("m", None)


def test_batches_keep_to_fifty_keys_and_the_last_change_of_a_key_wins():
    changes = [EntryChange(f"k{index}", "v") for index in range(120)] + [EntryChange("k7", None)]
    updates = stream_updates(changes, store_bytes=0)
    assert all(len(update) <= MAX_KEYS_PER_UPDATE for update in updates)
    assert updates[0].deletes == ("k7",)
    assert sum(len(update.puts) for update in updates) == 119


def test_a_put_with_no_room_left_becomes_a_delete_never_a_stale_entry():
    # Given a store with room for one entry only
    budget = entry_bytes("a", "x" * 100) + 10
    updates = stream_updates([EntryChange("a", "x" * 100), EntryChange("b", "y" * 100)], store_bytes=0, budget=budget)
    # Then the first goes in, the second leaves (the origin answers it)
    assert [(update.puts, update.deletes) for update in updates] == [((), ("b",)), ((("a", "x" * 100),), ())]


def test_reconciliation_repairs_drift_and_counts_it():
    # Given a store with a stale entry, an extra key and a link missing
    store = InMemoryEdgeStore()
    kept, edited, missing = link("kept"), link("edited"), link("missing")
    push_link_changes(store, [(None, kept), (None, edited)], NO_DOMAINS, NOW)
    store.store.update(store.store.etag, [("gone", "[1]")], [])
    edited_now = replace(edited, url="https://example.com/edited")
    # When the table is reconciled
    repairs = reconcile(store, [kept, edited_now, missing], NO_DOMAINS, RecentClicksOf({}), NOW)
    # Then each drift is repaired once and counted
    assert (repairs.missing, repairs.stale, repairs.extra, repairs.total) == (1, 1, 1, 3)
    assert store.entries() == {
        "kept": edge_entry(kept, NOW),
        "edited": edge_entry(edited_now, NOW),
        "missing": edge_entry(missing, NOW),
    }
    # And a second run finds nothing to repair
    assert reconcile(store, [kept, edited_now, missing], NO_DOMAINS, RecentClicksOf({}), NOW).total == 0


def test_with_domains_keys_name_the_host_and_the_earlier_layout_leaves_while_heat_reads_the_link():
    # Given a store in the earlier layout (a domains entry, the default domain's bare codes)
    domains = ShortDomains.parse("s.example,go.example")
    store = InMemoryEdgeStore()
    store.store.update(store.store.etag, [(".domains", '["s.example","go.example"]'), ("a", "[1]")], [])
    default, other = link("a"), link("b", domain="go.example")
    heat = RecentClicksOf({"a": 5, "go.example/b": 9})
    both = (("s.example/a", default), ("go.example/b", other))
    size = sum(entry_bytes(key, edge_entry(item, NOW) or "") for key, item in both)
    # When it is reconciled with room for one of the two only, clicks are read
    repairs = reconcile(store, [default, other], domains, heat, NOW, budget=size - 1)
    # Then the hotter link stays under its host's key, read by the link's own key
    assert store.entries() == {"go.example/b": edge_entry(other, NOW)}
    assert (repairs.extra, heat.reads) == (2, 2)
    # And a change streams in under the same key
    assert entry_change(other, None, domains, NOW) == EntryChange("go.example/b", None)


def test_reconciliation_drops_links_expired_since_their_last_change():
    store = InMemoryEdgeStore()
    expiring = link("soon", expires_at=NOW + timedelta(minutes=1))
    push_link_changes(store, [(None, expiring)], NO_DOMAINS, NOW)
    later = NOW + timedelta(minutes=2)
    assert reconcile(store, [expiring], NO_DOMAINS, RecentClicksOf({}), later).extra == 1
    assert "soon" not in store.entries()


def test_when_not_all_fit_the_hottest_stay_and_clicks_are_read_only_then():
    long_url = "https://example.com/" + "p" * 900
    links = [link(f"code{index}", long_url) for index in range(6)]
    size = entry_bytes("code0", edge_entry(links[0], NOW) or "")
    store = InMemoryEdgeStore()
    everything = RecentClicksOf({})
    reconcile(store, links, NO_DOMAINS, everything, NOW, budget=size * 6)
    assert everything.reads == 0
    assert len(store.entries()) == 6
    # When only four fit, the four hottest are kept and the coldest leave
    heat = RecentClicksOf({f"code{index}": index * 10 for index in range(6)})
    repairs = reconcile(store, links, NO_DOMAINS, heat, NOW, budget=size * 4 + 1)
    assert heat.reads == 6
    assert repairs.extra == 2
    assert set(store.entries()) == {"code2", "code3", "code4", "code5"}


urls = st.text(alphabet="abcdefghij/-_", min_size=0, max_size=MAX_VALUE_BYTES).map(lambda path: f"https://e.org/{path}")
link_sets = st.dictionaries(st.from_regex(r"[a-zA-Z0-9]{1,12}", fullmatch=True), urls, min_size=1, max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=link_sets, after=link_sets, budget_entries=st.integers(1, 40), heat=st.integers(0, 2**16))
def test_the_store_never_exceeds_its_limits(before, after, budget_entries, heat):
    # Given a budget a few entries large (the store's 5 MB scaled down), and any two states of the table
    budget = budget_entries * 600
    store = InMemoryEdgeStore()
    old = {code: link(code, url) for code, url in before.items()}
    new = {code: link(code, url) for code, url in after.items()}
    clicks = RecentClicksOf({code: (heat * len(code)) % 97 for code in new})
    # When the first state is reconciled, then the changes stream in, then all is reconciled again
    reconcile(store, list(old.values()), NO_DOMAINS, clicks, NOW, budget=budget)
    changes = [(old.get(code), new.get(code)) for code in sorted(old.keys() | new.keys())]
    push_link_changes(store, changes, NO_DOMAINS, NOW, budget=budget)
    reconcile(store, list(new.values()), NO_DOMAINS, clicks, NOW, budget=budget)
    # Then no call broke a limit (the local store refuses one that does), the store stayed within
    # the budget, and it holds exactly the current entries of what it holds
    assert all(len(update) <= MAX_KEYS_PER_UPDATE for update in store.updates)
    assert store.largest_size <= min(budget, MAX_STORE_BYTES)
    held = store.entries()
    assert all(held[code] == edge_entry(new[code], NOW) for code in held)
