"""Recording what a request changed: who made it and from where, once per request, then one
entry per change, written with the change and announced to webhooks as `audit.recorded`."""

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime

from shortlink.audit.model import Action, AuditEntry, PersonChange, RecordedActor, new_entry
from shortlink.audit.trail import AuditTrail
from shortlink.clicks.visitor_hashes import daily_salt
from shortlink.links.model import Link, LinkChanges, private_key_digest
from shortlink.people.actors import Actor
from shortlink.webhooks import emitting
from shortlink.webhooks.events import AUDIT_EVENT, EventMessage, link_event


def client_hash(salt_root: bytes, address: str | None, at: datetime) -> str:
    """The client's address hashed under the day's salt, as visitors' are (see
    shortlink.clicks.visitor_hashes): the same all day, unrelated the next; "" without one."""
    if not address:
        return ""
    return hmac.new(daily_salt(salt_root, at.date()), f"client:{address}".encode(), hashlib.sha256).hexdigest()[:32]


def recorded(actor: Actor) -> RecordedActor:
    """Who acted, as an entry keeps it: a key's public id and name (never its hash), a person's
    subject and email."""
    return RecordedActor(actor.kind, actor.id, actor.label)


@dataclass(frozen=True)
class RequestOrigin:
    """Who made a request, in which workspace, from which (hashed) address, under which id."""

    workspace: str
    actor: RecordedActor
    client: str
    request_id: str

    def entry(
        self,
        action: Action,
        target_id: str,
        at: datetime,
        changed: Iterable[str] = (),
        person: PersonChange | None = None,
    ) -> AuditEntry:
        return new_entry(
            self.workspace, at, self.actor, action, target_id, self.client, self.request_id, changed, person
        )


def link_target(link: Link) -> str:
    """A link's id in the log: its key, but a private link's is a capability, kept out of the log
    as out of every log line: a hash of it, which whoever holds the code can compute again."""
    if not link.private:
        return link.key
    return private_key_digest(link.key)


def edited_fields(changes: LinkChanges) -> tuple[str, ...]:
    """The fields a link's edit changes, by name: a new password as `password`, never a value."""
    return (*changes.stored_values(), *(("password",) if changes.password is not None else ()))


def changed_fields(before: Link, after: Link) -> tuple[str, ...]:
    """The fields whose values an edit changed (a form sends every field, changed or not)."""
    return tuple(field.name for field in fields(Link) if getattr(before, field.name) != getattr(after, field.name))


def audit_event(entry: AuditEntry) -> EventMessage:
    """The webhook event of an entry: its workspace's endpoints that want audit.recorded get it."""
    return link_event(AUDIT_EVENT, entry.workspace, (), entry.view(), entry.at)


class AuditRecorder:
    """Writes entries to the trail (a failure is the request's: StorageUnavailable, a 503), then
    queues their webhook events (a failure there is logged, as for link events), or hands them
    to the caller to queue with its own (one queue call per request)."""

    def __init__(self, trail: AuditTrail, events: emitting.EventQueue | None) -> None:
        self._trail = trail
        self._events = events

    def record(self, entries: Sequence[AuditEntry], along: list[EventMessage] | None = None) -> None:
        """Write the entries; their events are queued now, or added to `along` (queued by the caller)."""
        if not entries:
            return
        self._trail.add(entries)
        events = [audit_event(entry) for entry in entries]
        if along is None:
            emitting.emit(self._events, events)
        else:
            along.extend(events)
