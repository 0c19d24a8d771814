"""The link commands (shortlink.commands.links) over fakes of their ports: each command writes
the link, its audit entry and queues its link.* event with the entry's audit.recorded, in one
queue call; a refused command writes, records and queues nothing, and costs no allowance."""

from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink.audit.model import AuditEntry, RecordedActor
from shortlink.audit.recording import AuditRecorder, RequestOrigin, link_target
from shortlink.commands.links import LinkCommands
from shortlink.domains.model import ShortDomains
from shortlink.errors import InvalidUrl, LinkNotFound, RateLimited, SlugTaken, StorageUnavailable
from shortlink.links.model import Link, LinkChanges, LinkOptions
from shortlink.transfer.formats import Record
from shortlink.transfer.imports import AlreadyImported
from shortlink.web.urls import DestinationPolicy
from tests.fakes import InMemoryAuditTrail, InMemoryEventQueue, InMemoryLinks

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
ORIGIN = RequestOrigin("acct-1", RecordedActor("key", "key-1", "deploy bot"), "client-hash", "req-1")


class Codes:
    length = 7

    def __init__(self) -> None:
        self.drawn = 0

    def next_code(self) -> str:
        self.drawn += 1
        return f"code{self.drawn:03d}"


class Allowance:
    def __init__(self, left: int = 100) -> None:
        self.left = left
        self.taken = 0

    def take(self) -> None:
        if self.taken >= self.left:
            raise RateLimited(retry_after=30)
        self.taken += 1

    def give_back(self) -> None:
        self.taken -= 1


class ImportingLinks(InMemoryLinks):
    """Links whose adds also claim a record's import key and write its entry, as one write."""

    def __init__(self, entry_of: Any, trail: InMemoryAuditTrail) -> None:
        super().__init__()
        self.claims: dict[str, str] = {}
        self.entry_of = entry_of
        self.trail = trail
        self.written: list[AuditEntry] = []
        self.claiming_key: str | None = None

    def imported_code(self, import_key: str) -> str | None:
        return self.claims.get(import_key)

    def claiming(self, import_key: str) -> "ImportingLinks":
        if import_key in self.claims:
            raise AlreadyImported(self.claims[import_key])
        self.claiming_key = import_key
        return self

    def add(self, link: Link) -> None:
        super().add(link)
        self._written(link)
        if self.claiming_key is not None:
            self.claims[self.claiming_key] = link.code

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        super().add_with_slug(link, slug_key)
        self._written(link)

    def _written(self, link: Link) -> None:
        entry = self.entry_of(link)
        self.trail.add([entry])
        self.written.append(entry)

    def recorded(self) -> list[AuditEntry]:
        return list(self.written)


def view(link: Link) -> dict[str, Any]:
    return {"code": link.code, "url": link.url, "deleted": link.deleted_at is not None}


class Door:
    """What a door hands the commands, kept to look at afterwards."""

    def __init__(self, allowance: Allowance | None = None, trail_fails: bool = False) -> None:
        self.links = InMemoryLinks()
        self.codes = Codes()
        self.allowance = allowance or Allowance()
        self.trail = InMemoryAuditTrail(fails=trail_fails)
        self.queue = InMemoryEventQueue()
        self.commands = LinkCommands(
            origin=ORIGIN,
            clock=lambda: NOW,
            links=self.links,
            codes=lambda: self.codes,
            policy=lambda: DestinationPolicy.of(frozenset({"sho.rt"}), ""),
            allowance=lambda: self.allowance,
            present=view,
            recorder=AuditRecorder(self.trail, self.queue),
            events=self.queue,
        )

    def calls(self) -> list[list[tuple[str, str]]]:
        """Each queue call's events: (type, the link's code or the entry's action)."""
        return [
            [(e.event_type, e.data["action"] if e.event_type == "audit.recorded" else e.data["code"]) for e in call]
            for call in self.queue.calls
        ]


def test_each_command_writes_its_link_records_its_entry_and_queues_both_events_in_one_call():
    # Given a door's commands
    door = Door()
    # When a link is created, edited, deleted and restored
    created = door.commands.create("https://example.com/a", LinkOptions(tags=("promo",)))
    key = created.link.key
    edited = door.commands.edit(key, LinkChanges(url="https://example.com/b"))
    door.commands.delete(key)
    restored = door.commands.restore(key)
    # Then each wrote the link, an entry of the caller's workspace, and one queue call of two events
    code = created.link.code
    assert (created.view, edited.view["url"], restored.view["deleted"]) == (
        view(created.link),
        "https://example.com/b",
        False,
    )
    assert [(e.action, e.target.id, e.workspace, e.actor.id) for e in door.trail.entries] == [
        (action, key, "acct-1", "key-1") for action in ("link.created", "link.edited", "link.deleted", "link.restored")
    ]
    assert door.trail.entries[1].changed == ("url",)
    assert door.calls() == [
        [(event, code), ("audit.recorded", action)]
        for event, action in (
            ("link.created", "link.created"),
            ("link.updated", "link.edited"),
            ("link.deleted", "link.deleted"),
            ("link.restored", "link.restored"),
        )
    ]
    # And the link event carries the link's owner and tags (an endpoint's tag filter reads them)
    first = door.queue.calls[0][0]
    assert (first.owner, first.tags, first.at) == ("acct-1", ("promo",), NOW)
    assert door.allowance.taken == 1


def test_a_form_edit_names_the_fields_whose_values_changed_an_api_edit_those_it_sent():
    door = Door()
    link = door.commands.create("https://example.com/a", LinkOptions(title="A")).link
    # A form sends every field: only the changed ones are named
    door.commands.edit(link.key, LinkChanges(url="https://example.com/a", title="B"), compared_with=link)
    # The API sends what changes: each is named, a password by name only
    door.commands.edit(link.key, LinkChanges(url="https://example.com/a", password="correct horse battery"))
    assert [entry.changed for entry in door.trail.entries[1:]] == [("title",), ("password", "url")]


def test_a_refused_create_writes_records_and_queues_nothing_and_costs_no_allowance():
    door = Door()
    taken = door.commands.create("https://example.com/a", LinkOptions(slug="launch")).link
    for url, options, error in [
        ("javascript:alert(1)", LinkOptions(), InvalidUrl),
        ("https://sho.rt/loop", LinkOptions(), InvalidUrl),  # one of our own hosts
        ("https://example.com/b", LinkOptions(slug="launch"), SlugTaken),
    ]:
        with pytest.raises(error):
            door.commands.create(url, options)
    assert list(door.links.items.values()) == [taken]
    assert len(door.trail.entries) == len(door.queue.calls) == door.allowance.taken == 1


def test_an_exhausted_allowance_refuses_the_create_before_anything_is_written():
    door = Door(Allowance(left=0))
    with pytest.raises(RateLimited):
        door.commands.create("https://example.com/a", LinkOptions())
    assert (door.links.items, door.trail.entries, door.queue.calls) == ({}, [], [])


def test_another_accounts_link_is_not_found_and_nothing_is_recorded():
    door, other = Door(), Door()
    link = other.commands.create("https://example.com/a", LinkOptions()).link
    door.links.items[link.key] = Link(**{**link.__dict__, "owner": "acct-2"})
    for command in (door.commands.delete, door.commands.restore):
        with pytest.raises(LinkNotFound):
            command(link.key)
    with pytest.raises(LinkNotFound):
        door.commands.edit(link.key, LinkChanges(title="mine now"))
    assert (door.trail.entries, door.queue.calls) == ([], [])


def test_an_entry_not_written_fails_the_command_and_no_event_tells_of_it():
    # Given a trail that refuses writes (throttled)
    door = Door(trail_fails=True)
    # When a link is created, the request fails (a 503 at the door)
    with pytest.raises(StorageUnavailable):
        door.commands.create("https://example.com/a", LinkOptions())
    # And no event was queued for a change the log does not hold
    assert door.queue.calls == []


def test_commands_run_together_queue_every_event_in_one_call_even_when_one_fails():
    door = Door(Allowance(left=2))
    with door.commands.together():
        first = door.commands.create("https://example.com/1", LinkOptions()).link
        second = door.commands.create("https://example.com/2", LinkOptions()).link
        with pytest.raises(RateLimited):
            door.commands.create("https://example.com/3", LinkOptions())
        assert door.queue.calls == []  # nothing before the batch ends
    assert door.calls() == [
        [
            ("link.created", first.code),
            ("audit.recorded", "link.created"),
            ("link.created", second.code),
            ("audit.recorded", "link.created"),
        ]
    ]


def test_an_import_creates_each_record_through_the_create_and_queues_a_link_created_per_new_link():
    # Given a file of three records, one refused, one deleted when exported
    door = Door()
    links = ImportingLinks(door.commands.imported_entry, door.trail)
    records = [
        Record(1, {"url": "https://example.com/1", "tags": ["promo"]}),
        Record(2, {"url": "ftp://example.com/2"}),
        Record(3, {"url": "https://example.com/3", "deleted_at": "2026-02-01T00:00:00Z"}),
    ]
    domains = ShortDomains(())

    # When it is imported twice
    def failure(error: Exception) -> tuple[str, str]:
        return type(error).__name__, str(error)

    report = door.commands.import_records(records, links, domains, failure, lambda error: "invalid")
    first_run = list(door.queue.calls)
    links.written.clear()  # the next request records afresh
    again = door.commands.import_records(records, links, domains, failure, lambda error: "invalid")

    # Then the first run created two links, each with its link.imported entry, and queued in one
    # call a link.created per link (a deleted one as it is stored) and an audit.recorded per entry
    assert [result.status for result in report.results] == ["created", "failed", "created"]
    created = sorted(links.items.values(), key=lambda link: link.url)
    assert [(e.action, e.target.id) for e in door.trail.entries] == [
        ("link.imported", link_target(link)) for link in created
    ]
    [call] = first_run
    assert [(e.event_type, e.data.get("code") or e.data["action"]) for e in call] == [
        ("link.created", created[0].code),
        ("link.created", created[1].code),
        ("audit.recorded", "link.imported"),
        ("audit.recorded", "link.imported"),
    ]
    assert call[1].data["deleted"] is True
    assert call[0].tags == ("promo",)
    # And the second created nothing, recorded nothing, and queued nothing
    assert [result.status for result in again.results] == ["skipped", "failed", "skipped"]
    assert door.queue.calls == first_run
    assert len(door.trail.entries) == door.allowance.taken == 2
