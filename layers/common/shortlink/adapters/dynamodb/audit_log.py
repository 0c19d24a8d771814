"""The audit log (pynamodb): one item per entry under its workspace, keyed by its id (the moment
in milliseconds, then random bits: newest first is a reverse Query), an index by
target for one link's (or key's...) entries, and a TTL of the retention's days. Entries are
only ever put, on the condition that none has the id: the functions may PutItem and Query, nothing else."""

import base64
import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import PynamoDBException
from pynamodb.expressions.condition import Condition
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.audit.model import AuditEntry, PersonChange, RecordedActor, Target, milliseconds
from shortlink.audit.queries import AuditQuery, InvalidAuditQuery
from shortlink.audit.trail import AuditPage
from shortlink.errors import StorageUnavailable

TARGET_INDEX = "ByTarget"


def target_key(workspace: str, kind: str, target_id: str) -> str:
    """The index key of one target's entries: within its workspace, so no other sees them."""
    return f"{workspace}#{kind}#{target_id}"


class TargetIndex(GlobalSecondaryIndex["AuditItem"]):  # type: ignore[no-untyped-call]
    class Meta:
        index_name = TARGET_INDEX
        projection = AllProjection()

    target_key = UnicodeAttribute(hash_key=True, attr_name="tg")
    entry_id = UnicodeAttribute(range_key=True, attr_name="sk")


class AuditItem(Model):
    class Meta(TableMeta):
        pass

    by_target = TargetIndex()

    workspace = UnicodeAttribute(hash_key=True, attr_name="ws")
    entry_id = UnicodeAttribute(range_key=True, attr_name="sk")
    target_key = UnicodeAttribute(attr_name="tg")
    at = UTCDateTimeAttribute(attr_name="at")
    actor_kind = UnicodeAttribute(attr_name="ak")
    actor_id = UnicodeAttribute(attr_name="ai")
    actor_label = UnicodeAttribute(null=True, attr_name="al")
    action = UnicodeAttribute(attr_name="ac")
    target_kind = UnicodeAttribute(attr_name="tk")
    target_id = UnicodeAttribute(attr_name="ti")
    changed = ListAttribute[UnicodeAttribute](of=UnicodeAttribute, null=True, attr_name="ch")
    client = UnicodeAttribute(null=True, attr_name="cl")
    request_id = UnicodeAttribute(null=True, attr_name="rq")
    # member.* entries: the email of the person acted on at that moment, their role before and after.
    person_email = UnicodeAttribute(null=True, attr_name="pe")
    old_role = UnicodeAttribute(null=True, attr_name="ro")
    new_role = UnicodeAttribute(null=True, attr_name="rn")
    expires_at_epoch = NumberAttribute(attr_name="expires_at_epoch")  # the table's TTL attribute


def _to_entry(item: AuditItem) -> AuditEntry:
    return AuditEntry(
        workspace=item.workspace,
        at=item.at,
        actor=RecordedActor(item.actor_kind, item.actor_id, item.actor_label or ""),  # type: ignore[arg-type]  # stored from the vocabulary
        action=item.action,  # type: ignore[arg-type]  # stored from the vocabulary
        target=Target(item.target_kind, item.target_id),  # type: ignore[arg-type]  # stored from the vocabulary
        client=item.client or "",
        request_id=item.request_id or "",
        changed=tuple(str(name) for name in item.changed or ()),
        id=item.entry_id,
        person=PersonChange(item.person_email, item.old_role or "", item.new_role or "") if item.person_email else None,
    )


class DynamoAuditTrail:
    """The audit log, in `region`'s table; while that region cannot be reached, an entry goes to
    the replica `here` (each entry is an item of its own that nothing overwrites, so any region
    may hold it first: it replicates when the region returns)."""

    def __init__(
        self, table_name: str, retention_days: int, region: str | None = None, here: str | None = None
    ) -> None:
        self._model = bound_model(AuditItem, table_name, region)
        self._here = bound_model(AuditItem, table_name, here) if here != region else self._model
        self._retention = timedelta(days=retention_days)

    def _item(self, entry: AuditEntry, model: type[AuditItem] | None = None) -> AuditItem:
        return (model or self._model)(
            workspace=entry.workspace,
            entry_id=entry.id,
            target_key=target_key(entry.workspace, entry.target.kind, entry.target.id),
            at=entry.at,
            actor_kind=entry.actor.kind,
            actor_id=entry.actor.id,
            actor_label=entry.actor.label or None,
            action=entry.action,
            target_kind=entry.target.kind,
            target_id=entry.target.id,
            changed=list(entry.changed) or None,
            client=entry.client or None,
            request_id=entry.request_id or None,
            person_email=entry.person.email if entry.person is not None else None,
            old_role=entry.person.old_role or None if entry.person is not None else None,
            new_role=entry.person.new_role or None if entry.person is not None else None,
            expires_at_epoch=int((entry.at + self._retention).timestamp()),
        )

    def add(self, entries: Sequence[AuditEntry]) -> None:
        for entry in entries:
            try:
                self._save(self._model, entry)
            except StorageUnavailable:
                if self._here is self._model:
                    raise
                self._save(self._here, entry)

    def add_once(self, entry: AuditEntry) -> bool:
        try:
            self._item(entry).save(condition=self._model.entry_id.does_not_exist())
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def _save(self, model: type[AuditItem], entry: AuditEntry) -> None:
        try:
            self._item(entry, model).save(condition=model.entry_id.does_not_exist())  # never over an entry
        except PynamoDBException as error:
            raise unavailable(error) from error

    def put_in(self, transaction: TransactWrite, entry: AuditEntry) -> None:
        """Put `entry` in `transaction`, written with the change it records or not at all."""
        transaction.save(self._item(entry), condition=self._model.entry_id.does_not_exist())

    def page(self, workspace: str, query: AuditQuery) -> AuditPage:
        by_target = query.target_kind is not None and query.target_id is not None
        hash_key = target_key(workspace, query.target_kind or "", query.target_id or "") if by_target else workspace
        start = _decode_cursor(query.cursor, workspace, hash_key if by_target else None) if query.cursor else None
        since = f"{milliseconds(query.since):013d}" if query.since is not None else None
        until = f"{milliseconds(query.until):013d}" if query.until is not None else None
        sort_key = self._model.entry_id
        range_condition: Condition | None = None
        if since is not None and until is not None:
            range_condition = sort_key.between(since, until)  # ids of `until`'s millisecond sort after it: excluded
        elif since is not None:
            range_condition = sort_key >= since
        elif until is not None:
            range_condition = sort_key < until
        kind_filter = (
            self._model.target_kind == query.target_kind if query.target_kind is not None and not by_target else None
        )
        reader = self._model.by_target.query if by_target else self._model.query
        entries: list[AuditEntry] = []
        try:
            while True:  # a kind filter applies after the read: read on until the page is full
                page = reader(
                    hash_key,
                    range_key_condition=range_condition,
                    filter_condition=kind_filter,
                    scan_index_forward=False,
                    limit=query.limit - len(entries),
                    last_evaluated_key=start,
                )
                entries.extend(_to_entry(item) for item in page)
                start = page.last_evaluated_key
                if start is None or len(entries) >= query.limit:
                    break
        except PynamoDBException as error:
            raise unavailable(error) from error
        return AuditPage(entries, _encode_cursor(start) if start else None)


def _encode_cursor(key: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def _decode_cursor(cursor: str, workspace: str, index_key: str | None) -> dict[str, Any]:
    """A cursor this trail gave out for this workspace (and this target): anything else is refused."""
    refused = InvalidAuditQuery("cursor", "is not one this API gave out")
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except ValueError:
        raise refused from None
    names = {"ws", "sk", "tg"} if index_key is not None else {"ws", "sk"}
    well_formed = (
        isinstance(key, dict)
        and set(key) == names
        and all(
            isinstance(value, dict) and set(value) == {"S"} and isinstance(value["S"], str) for value in key.values()
        )
    )
    if not well_formed or key["ws"]["S"] != workspace or (index_key is not None and key["tg"]["S"] != index_key):
        raise refused
    return dict(key)
