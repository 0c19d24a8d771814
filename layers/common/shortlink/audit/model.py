"""An audit entry and its closed vocabulary of actions, each about one kind of target."""

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from shortlink.people.actors import ActorKind

TargetKind = Literal[
    "link", "key", "webhook", "member", "setting", "session", "person", "workspace", "export", "scim", "domain", "sso"
]
Action = Literal[
    "link.created",
    "link.edited",
    "link.deleted",
    "link.restored",
    "link.imported",
    "link.moved",
    "key.created",
    "key.revoked",
    "webhook.created",
    "webhook.changed",
    "webhook.deleted",
    "webhook.secret_rotated",
    "session.signed_in",
    "session.signed_out",
    "session.sign_in_failed",
    "session.mfa_failed",
    "member.invited",
    "member.invitation_revoked",
    "member.invitation_resent",
    "member.joined",
    "member.role_changed",
    "member.removed",
    "member.left",
    "setting.changed",
    "workspace.created",
    "person.totp_enabled",
    "person.passkey_added",
    "person.passkey_removed",
    "person.totp_disabled",
    "person.recovery_codes_issued",
    "person.recovery_code_used",
    "person.password_reset",
    "export.started",
    "scim.token_created",
    "scim.token_revoked",
    "domain.added",
    "domain.verified",
    "domain.removed",
    "sso.provider_saved",
    "sso.provider_tested",
    "sso.provider_turned_on",
    "sso.provider_turned_off",
    "sso.provider_removed",
]
ACTIONS: tuple[Action, ...] = get_args(Action)
TARGET_KINDS: tuple[TargetKind, ...] = get_args(TargetKind)
# Stored fields whose values are secrets: an edit names them (under their public name), never shows them.
SECRET_FIELDS = {"password_hash": "password"}


def target_kind_of(action: Action) -> TargetKind:
    """The kind of target an action is about: the word before its dot."""
    kind = action.split(".", 1)[0]
    if kind not in TARGET_KINDS:
        raise ValueError(f"{action} names no kind of target")
    return kind


@dataclass(frozen=True)
class RecordedActor:
    """What an entry keeps of who acted (shortlink.people.actors.Actor, a key or a person): a
    key's public key_id (never its hash) and name, or a person's subject and email; not the
    scopes or role they held."""

    kind: ActorKind
    id: str
    label: str


@dataclass(frozen=True)
class Target:
    kind: TargetKind
    id: str


@dataclass(frozen=True)
class PersonChange:
    """What a member's entry says of the person acted on, as they were at that moment (a later
    change of address or role leaves the entry as it was): their email, their role before and
    after (empty where the action has none: an invitation has no role before it)."""

    email: str
    old_role: str = ""
    new_role: str = ""


def entry_id(at: datetime) -> str:
    """A new entry's id: its moment in milliseconds (so ids sort by time) and 48 random bits."""
    return f"{milliseconds(at):013d}-{secrets.token_hex(6)}"


def aggregated_entry_id(at: datetime, source: str) -> str:
    """The id of the one entry a `source` (an address block and what it failed) may have in the
    minute of `at`: a second one of that minute has the same id, and is not written."""
    minute = at.replace(second=0, microsecond=0)
    return f"{milliseconds(minute):013d}-{hashlib.sha256(source.encode()).hexdigest()[:12]}"


def milliseconds(at: datetime) -> int:
    return int(at.timestamp() * 1000)


@dataclass(frozen=True)
class AuditEntry:
    workspace: str
    at: datetime  # UTC, to the millisecond
    actor: RecordedActor
    action: Action
    target: Target
    client: str  # the hash of the client's address under the day's salt; "" when unknown
    request_id: str
    # An edit: the fields it changed, by name (never their values: no password, no hash).
    changed: tuple[str, ...] = ()
    id: str = ""
    person: PersonChange | None = None  # member.* entries: who was acted on, and their roles

    def view(self) -> dict[str, Any]:
        """The entry as the API, the exports and the webhook event show it."""
        person = self.person
        return {
            "id": self.id,
            "at": self.at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "workspace": self.workspace,
            "actor": {"kind": self.actor.kind, "id": self.actor.id, "label": self.actor.label},
            "action": self.action,
            "target": {"kind": self.target.kind, "id": self.target.id},
            "changed": list(self.changed),
            "client": self.client,
            "request_id": self.request_id,
            "person": None
            if person is None
            else {"email": person.email, "old_role": person.old_role or None, "new_role": person.new_role or None},
        }


def new_entry(
    workspace: str,
    at: datetime,
    actor: RecordedActor,
    action: Action,
    target_id: str,
    client: str,
    request_id: str,
    changed: Iterable[str] = (),
    person: PersonChange | None = None,
) -> AuditEntry:
    """An entry of `action` on the target `target_id` at `at` (kept to the millisecond); an edit
    names the fields it `changed`, secret ones under their public name."""
    moment = at.astimezone(UTC).replace(microsecond=at.microsecond // 1000 * 1000)
    names = tuple(sorted({SECRET_FIELDS.get(name, name) for name in changed}))
    return AuditEntry(
        workspace=workspace,
        at=moment,
        actor=actor,
        action=action,
        target=Target(target_kind_of(action), target_id),
        client=client,
        request_id=request_id,
        changed=names,
        id=entry_id(moment),
        person=person,
    )
