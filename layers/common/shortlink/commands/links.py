"""The link commands: create, edit, delete, restore and import a link, each with the account's
create allowance, its audit entry and its webhook event assembled together and sent together,
whichever door asked (the API's functions, the console, an import).

A command writes the link, then its audit entry (a failure there is the request's: a 503),
then queues the link's `link.*` event beside the entry's `audit.recorded` in one queue call (a
failure to queue is logged: the link is written, its event is what is lost). Commands run
`together()` (a bulk create) queue every event of the batch in one call at its end. A door's
idempotency (the API's Idempotency-Key) wraps the command: a replay runs none of it.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from shortlink.audit.model import Action, AuditEntry
from shortlink.audit.recording import (
    AuditRecorder,
    RequestOrigin,
    audit_event,
    changed_fields,
    edited_fields,
    link_target,
)
from shortlink.domains.model import DomainNames, ShortDomains, split_key
from shortlink.links.model import Link, LinkChanges, LinkOptions
from shortlink.links.ports import Allowance, LinkMoves, LinkRepository
from shortlink.links.use_cases import create_link, delete_link, edit_link, move_link, restore_link
from shortlink.transfer.formats import Record
from shortlink.transfer.imports import FailureAnswer, Importer, ImportReport, ImportRepository, InvalidAnswer
from shortlink.web.urls import DestinationPolicy
from shortlink.webhooks.emitting import EventQueue, emit
from shortlink.webhooks.events import EventMessage, EventType, link_event

if TYPE_CHECKING:  # only the create draws codes
    from shortlink.codes.generator import CodeSource

# How a door shows a link: the view its answer carries and the link's events carry as `data`.
LinkPresenter = Callable[[Link], dict[str, Any]]


class RecordedImports(ImportRepository, Protocol):
    def recorded(self) -> list[AuditEntry]:
        """The audit entries written so far, each in the transaction of its link."""


@dataclass(frozen=True)
class LinkWritten:
    """A command's link as stored, and as the door shows it."""

    link: Link
    view: dict[str, Any]


class LinkCommands:
    """The commands of one request: who made it and from where (`origin`, whose workspace owns
    the links), what its links may point to (`policy`) and how its door shows a link. The code
    source, the policy, the allowance and the domains its links may be on are built on first use
    (a delete needs none of them)."""

    def __init__(
        self,
        *,
        origin: RequestOrigin,
        clock: Callable[[], datetime],
        links: LinkRepository,
        codes: Callable[[], "CodeSource"],
        policy: Callable[[], DestinationPolicy],
        allowance: Callable[[], Allowance | None],
        present: LinkPresenter,
        recorder: AuditRecorder,
        events: EventQueue | None,
        domains: Callable[[], DomainNames] = ShortDomains,
    ) -> None:
        self._origin = origin
        self._clock = clock
        self._links = links
        self._codes = codes
        self._policy = cache(policy)  # one per request: a bulk change's links share its reads
        self._allowance = allowance
        self._present = present
        self._recorder = recorder
        self._events = events
        self._domains = domains
        self._batch: list[EventMessage] | None = None

    @property
    def owner(self) -> str:
        """The account whose links these are (every key and member of it shares them)."""
        return self._origin.workspace

    @contextmanager
    def together(self) -> Iterator[None]:
        """Queue the events of the commands run inside in one call at the end, also when one of
        them fails (the links written before it keep their events)."""
        self._batch = []
        try:
            yield
        finally:
            batch, self._batch = self._batch, None
            emit(self._events, batch)

    @contextmanager
    def all_or_nothing(self, commit: Callable[[], None]) -> Iterator[None]:
        """Run the commands inside against a staging repository and recorder (a bulk change's),
        then `commit` them; their events are queued in one call once committed, never otherwise."""
        self._batch = []
        try:
            yield
            commit()
            batch = self._batch
        finally:
            self._batch = None
        emit(self._events, batch)

    def create(self, url: str, options: LinkOptions) -> LinkWritten:
        """A new link (`link.created`): refused before the allowance is taken if invalid, the
        allowance given back if the store refuses it."""
        at = self._clock()
        link = create_link(url, self.owner, self._codes(), self._links, at, options, self._policy(), self._allowance())
        return self._announced("link.created", "link.created", link, at)

    def edit(self, key: str, changes: LinkChanges, compared_with: Link | None = None) -> LinkWritten:
        """The link edited (`link.updated`); its entry names the fields that changed: those
        whose values differ from `compared_with` (a form sends them all), else those `changes` names."""
        at = self._clock()
        edited = edit_link(key, self.owner, changes, self._links, at, self._policy())
        changed = changed_fields(compared_with, edited) if compared_with is not None else edited_fields(changes)
        return self._announced("link.updated", "link.edited", edited, at, changed)

    def move(self, key: str, domain: str, moves: LinkMoves) -> LinkWritten:
        """The link moved to `domain`, a domain the door found the workspace may use, under the
        same code (`link.updated`; its entry `link.moved` names the link at its new address);
        not one whose destination loops back through this shortener."""
        at = self._clock()
        moved = move_link(key, self.owner, domain, self._links, moves, self._policy())
        return self._announced("link.updated", "link.moved", moved, at, ("domain",))

    def delete(self, key: str) -> LinkWritten:
        """Soft delete (`link.deleted`): the link answers 410 and can be restored."""
        at = self._clock()
        return self._announced("link.deleted", "link.deleted", delete_link(key, self.owner, self._links, at), at)

    def restore(self, key: str) -> LinkWritten:
        """Undo a delete (`link.restored`): on a workspace's domain only while the workspace
        holds it verified (a released domain may be another workspace's by now)."""
        at = self._clock()
        if domain := split_key(key)[0]:
            self._domains().domain_named(domain)
        return self._announced("link.restored", "link.restored", restore_link(key, self.owner, self._links), at)

    def imported_entry(self, link: Link) -> AuditEntry:
        """The `link.imported` entry of a link an import writes (in the transaction of its link)."""
        return self._origin.entry("link.imported", link_target(link), self._clock())

    def import_records(
        self,
        records: Sequence[Record],
        links: RecordedImports,
        domains: DomainNames,
        failure_answer: FailureAnswer,
        invalid_answer: InvalidAnswer,
    ) -> ImportReport:
        """Each record a link through the create (or skipped, or failed, on its own), written
        into `links`, which writes each link's entry with it (`imported_entry`); then each new
        link's `link.created` and each entry's `audit.recorded`, in one queue call."""
        importer = Importer(
            owner=self.owner,
            codes=self._codes(),
            links=links,
            now=self._clock(),
            policy=self._policy(),
            allowance=self._allowance(),
            failure_answer=failure_answer,
            invalid_answer=invalid_answer,
            domains=domains,
        )
        try:
            report = importer.run(list(records))
        finally:  # what was written before a failure keeps its events
            written = [self._event("link.created", link) for link in importer.created]
            emit(self._events, [*written, *(audit_event(entry) for entry in links.recorded())])
        return report

    def _event(self, event_type: EventType, link: Link, view: Mapping[str, Any] | None = None) -> EventMessage:
        shown = self._present(link) if view is None else view
        return link_event(event_type, link.owner, link.tags, shown, self._clock())

    def _announced(
        self, event_type: EventType, action: Action, link: Link, at: datetime, changed: tuple[str, ...] = ()
    ) -> LinkWritten:
        view = self._present(link)
        queued = [self._event(event_type, link, view)]
        self._recorder.record([self._origin.entry(action, link_target(link), at, changed)], along=queued)
        if self._batch is None:
            emit(self._events, queued)
        else:
            self._batch.extend(queued)
        return LinkWritten(link, view)
