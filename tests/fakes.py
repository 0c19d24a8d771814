"""In-memory implementations of the domain's ports, for unit tests."""

import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

from shortlink.access.api_keys import ApiKey
from shortlink.audit.model import AuditEntry
from shortlink.audit.trail import AuditPage
from shortlink.edge.store_plan import StoreUpdate
from shortlink.errors import CodeTaken, LinkNotFound, SlugTaken, StorageUnavailable
from shortlink.links.model import Link, LinkChanges
from shortlink.people.model import Invitation, Membership, Role
from shortlink.webhooks.events import EventMessage


class InMemoryCounter:
    def __init__(self) -> None:
        self.value = 0
        self.reservations = 0
        self._lock = threading.Lock()

    def reserve(self, count: int) -> int:
        with self._lock:
            self.value += count
            self.reservations += 1
            return self.value


class InMemoryLinks:
    def __init__(self) -> None:
        self.items: dict[str, Link] = {}
        self.slug_claims: dict[str, str] = {}
        self.gets = 0

    def add(self, link: Link) -> None:
        if link.key in self.items:
            raise CodeTaken(link.key)
        self.items[link.key] = link

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        if link.key in self.items or slug_key in self.slug_claims:
            raise SlugTaken(link.code)
        self.items[link.key] = link
        self.slug_claims[slug_key] = link.key

    def get(self, code: str) -> Link | None:
        self.gets += 1
        return self.items.get(code)

    def existing_codes(self, codes: list[str]) -> set[str]:
        return {code for code in codes if code in self.items}

    def is_claimed(self, slug_key: str) -> bool:
        return slug_key in self.slug_claims

    def _owned(self, code: str, owner: str) -> Link:
        link = self.items.get(code)
        if link is None or link.owner != owner:
            raise LinkNotFound(code)
        return link

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        self.items[code] = changes.applied_to(self._owned(code, owner))
        return self.items[code]

    def set_deleted(self, code: str, owner: str, deleted_at: datetime | None) -> Link:
        self.items[code] = replace(self._owned(code, owner), deleted_at=deleted_at)
        return self.items[code]

    def list_for_owner(
        self,
        owner: str,
        limit: int,
        cursor: str | None,
        tag: str | None,
        utm_campaign: str | None = None,
        domain: str | None = None,
    ) -> tuple[list[Link], str | None]:
        mine = sorted(
            (
                link
                for link in self.items.values()
                if link.owner == owner
                and (tag is None or tag in link.tags)
                and (utm_campaign is None or (link.utm is not None and link.utm.campaign == utm_campaign))
                and domain in (None, link.domain)
            ),
            key=lambda link: link.created_at,
            reverse=True,
        )
        start = int(cursor or 0)
        page = mine[start : start + limit]
        return page, str(start + limit) if start + limit < len(mine) else None


class InMemoryApiKeys:
    def __init__(self, keys: dict[str, ApiKey] | None = None, *, busy: bool = False) -> None:
        self.keys = keys or {}
        self.writes = 0
        self.busy = busy  # every write fails as a throttled table's would
        self.fresh_lookups = 0  # those that must see the latest change (made before a write)

    def find_by_hash(self, key_hash: str, *, fresh: bool = False) -> ApiKey | None:
        self.fresh_lookups += fresh
        return self.keys.get(key_hash)

    def add(self, key_hash: str, key_id: str, name: str, **options: Any) -> ApiKey:
        key = ApiKey(key_id, name, datetime.now(UTC), **options)
        self.keys[key_hash] = key
        return key

    def revoke_made_by(self, owner: str, maker: str) -> list[str]:
        found = {h: k for h, k in self.keys.items() if (k.owner, k.maker, k.revoked) == (owner, maker, False)}
        self.keys.update({h: replace(k, revoked=True) for h, k in found.items()})
        return sorted(k.key_id for k in found.values())

    def mark_used(self, key_hash: str, day: date) -> None:
        if self.busy:
            raise StorageUnavailable("throttled")
        key = self.keys[key_hash]
        if key.last_used_on is None or key.last_used_on < day:  # the adapter's condition
            self.writes += 1
            self.keys[key_hash] = replace(key, last_used_on=day)


class InMemoryMemberships:
    """shortlink.people.ports.Memberships in a dict."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Membership] = {}
        self.removed: dict[tuple[str, str], datetime] = {}

    def was_removed(self, workspace_id: str, subject: str) -> bool:
        return (workspace_id, subject) in self.removed

    def membership_in(self, workspace_id: str, subject: str, *, fresh: bool = False) -> Membership | None:
        return self.items.get((workspace_id, subject))

    def role_in(self, workspace_id: str, subject: str) -> Role | None:
        found = self.items.get((workspace_id, subject))
        return found.role if found else None

    def of_person(self, subject: str) -> list[Membership]:
        return sorted((m for m in self.items.values() if m.subject == subject), key=lambda m: m.workspace_id)

    def of_email(self, email: str) -> list[Membership]:
        return [m for m in self.items.values() if m.email == email]

    def members_of(self, workspace_id: str) -> list[Membership]:
        return sorted((m for m in self.items.values() if m.workspace_id == workspace_id), key=lambda m: m.email)

    def add(self, membership: Membership, invited_at: datetime | None = None) -> bool:
        key = (membership.workspace_id, membership.subject)
        if key in self.removed and (invited_at is None or invited_at <= self.removed[key]):
            return False
        self.removed.pop(key, None)
        return self.items.setdefault(key, membership) is membership

    def set_role(self, workspace_id: str, subject: str, role: Role) -> bool:
        found = self.items.get((workspace_id, subject))
        if found is None:
            return False
        self.items[(workspace_id, subject)] = replace(found, role=role)
        return True

    def remove(self, workspace_id: str, subject: str, removed_at: datetime) -> bool:
        if self.items.pop((workspace_id, subject), None) is None:
            return False
        self.removed[(workspace_id, subject)] = removed_at
        return True

    def mark_active(self, workspace_id: str, subject: str, hour: datetime) -> None:
        found = self.items.get((workspace_id, subject))
        if found is not None and (found.last_active_at is None or found.last_active_at < hour):
            self.items[(workspace_id, subject)] = replace(found, last_active_at=hour)


class InMemoryPersonSessions:
    """shortlink.people.ports.PersonSessions in dicts."""

    def __init__(self) -> None:
        self.generations: dict[str, int] = {}
        self.signed_out: dict[str, int] = {}

    def session_generation(self, subject: str) -> int:
        return self.generations.get(subject, 0)

    def signed_out_at(self, subject: str) -> int:
        return self.signed_out.get(subject, 0)

    def end_sessions(self, subject: str, now: datetime | None = None) -> None:
        self.generations[subject] = self.session_generation(subject) + 1
        self.signed_out[subject] = int((now or datetime.now(UTC)).timestamp())


class InMemoryInvitations:
    """shortlink.people.ports.Invitations in a dict."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[Invitation, bool]] = {}

    def add(self, token_hash: str, invitation: Invitation) -> None:
        self.items[token_hash] = (invitation, False)

    def take(self, token_hash: str, now: datetime) -> Invitation | None:
        found = self.items.get(token_hash)
        if found is None or found[1] or found[0].expires_at <= now:
            return None
        self.items[token_hash] = (found[0], True)
        return found[0]

    def find(self, token_hash: str, now: datetime) -> Invitation | None:
        found = self.items.get(token_hash)
        return found[0] if found and not found[1] and found[0].expires_at > now else None

    def pending_for(self, workspace_id: str) -> list[Invitation]:
        now = datetime.now(UTC)
        return [
            i for i, taken in self.items.values() if i.workspace_id == workspace_id and not taken and i.expires_at > now
        ]

    def revoke(self, workspace_id: str, invitation_id: str, now: datetime) -> Invitation | None:
        for token_hash, (invitation, taken) in self.items.items():
            if (invitation.workspace_id, invitation.invitation_id) == (workspace_id, invitation_id):
                if taken or invitation.expires_at <= now:
                    return None
                self.items[token_hash] = (invitation, True)
                return invitation
        return None


class InMemoryAuditTrail:
    def __init__(self, fails: bool = False) -> None:
        self.entries: list[AuditEntry] = []
        self.fails = fails

    def add(self, entries: Sequence[AuditEntry]) -> None:
        if self.fails:
            raise StorageUnavailable("throttled")
        self.entries.extend(entries)

    def add_once(self, entry: AuditEntry) -> bool:
        if any(each.id == entry.id for each in self.entries):
            return False
        self.add([entry])
        return True

    def page(self, workspace: str, query: object) -> AuditPage:
        return AuditPage(list(self.entries), None)


class InMemoryEventQueue:
    """The webhook queue: what each call sent, call by call."""

    def __init__(self) -> None:
        self.calls: list[list[EventMessage]] = []

    @property
    def sent(self) -> list[EventMessage]:
        return [message for call in self.calls for message in call]

    def send(self, messages: Sequence[EventMessage]) -> None:
        self.calls.append(list(messages))


class InMemoryEdgeStore:
    """shortlink.edge.sync's EdgeStore over the local stack's KeyValueStore state (its limits and
    ETag checks), recording each update it was given."""

    def __init__(self) -> None:
        from tools.developers.devstack.key_value_store import LocalStore, local_arn

        self.store = LocalStore(local_arn("unit"))
        self.updates: list[StoreUpdate] = []
        self.largest_size = 0

    def size(self) -> int:
        return self.store.size()

    def apply(self, update: StoreUpdate) -> None:
        self.store.update(self.store.etag, list(update.puts), list(update.deletes))
        self.updates.append(update)
        self.largest_size = max(self.largest_size, self.store.size())

    def entries(self) -> dict[str, str]:
        return dict(self.store.entries)


class RecentClicksOf:
    """shortlink.edge.sync's RecentClicks from a dict, counting its reads."""

    def __init__(self, clicks: dict[str, int]) -> None:
        self.clicks = clicks
        self.reads = 0

    def recent_clicks(self, key: str) -> int:
        self.reads += 1
        return self.clicks.get(key, 0)
