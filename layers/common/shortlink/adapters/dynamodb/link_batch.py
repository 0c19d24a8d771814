"""A bulk change's batch (shortlink.commands.bulk): the selected links read in one BatchGetItem,
each link's update and its audit entry staged, then written in one TransactWriteItems, every
update on the condition that the link still exists and is its owner's; a move puts the link
under its new key (and its slug's claim there) on the condition that none is there, and deletes
its old key on the same condition as an update."""

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from pynamodb.exceptions import PynamoDBException, TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
from shortlink.adapters.dynamodb.bound_models import unavailable
from shortlink.adapters.dynamodb.link_items import CRAWLABLE
from shortlink.adapters.dynamodb.link_store import SLUG_CLAIM_PREFIX, DynamoLinkRepository, _to_link
from shortlink.audit.model import AuditEntry
from shortlink.audit.queries import AuditQuery
from shortlink.audit.trail import AuditPage
from shortlink.domains.model import split_key
from shortlink.errors import CodeTaken, LinkNotFound, ShortlinkError
from shortlink.links.bulk import BulkRefused, LinkRefusal
from shortlink.links.model import Link, LinkChanges

Staged = Callable[[TransactWrite], None]


class StagedEntries:
    """The audit trail of a batch: entries are put in its transaction, pages read as usual."""

    def __init__(self, trail: DynamoAuditTrail, stage: Callable[[Staged], None]) -> None:
        self._trail = trail
        self._stage = stage

    def add(self, entries: Sequence[AuditEntry]) -> None:
        for entry in entries:
            self._stage(partial(self._trail.put_in, entry=entry))

    def page(self, workspace: str, query: AuditQuery) -> AuditPage:
        return self._trail.page(workspace, query)


class DynamoLinkBatch(DynamoLinkRepository):
    """The links of one bulk change, in the home region's table with its audit trail (one
    transaction writes both tables, in one region)."""

    def __init__(self, table_name: str, region: str | None, trail: DynamoAuditTrail) -> None:
        super().__init__(table_name, region)
        self._read: dict[str, Link] = {}
        self._staged: list[tuple[str, Staged]] = []  # the link key each write is for
        self._taking: set[int] = set()  # the writes that take a key or claim (a move's): a failed one is taken
        self._entries = StagedEntries(trail, self._stage_for_last_link)

    def read(self, keys: Sequence[str]) -> None:
        try:
            # pynamodb asks for 100 keys a request and retries the unprocessed ones.
            self._read = {item.code: _to_link(item) for item in self._model.batch_get(keys, consistent_read=True)}
        except PynamoDBException as error:
            raise unavailable(error) from error

    def entries(self) -> StagedEntries:
        return self._entries

    def get(self, code: str) -> Link | None:
        return self._read.get(code)

    def _current(self, code: str, owner: str) -> Link:
        link = self._read.get(code)
        if link is None or link.owner != owner:
            raise LinkNotFound(split_key(code)[1])
        return link

    def _stage_update(self, code: str, owner: str, actions: list[Any]) -> None:
        condition = self._model.code.exists() & (self._declared("owner") == owner)
        item = self._model(code=code)
        self._staged.append((code, lambda transaction: transaction.update(item, actions, condition=condition)))

    def _stage_for_last_link(self, staged: Staged) -> None:
        self._staged.append((self._staged[-1][0] if self._staged else "", staged))

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        current = self._current(code, owner)
        self._stage_update(code, owner, self._edit_actions(changes))
        return changes.applied_to(current)

    def set_deleted(self, code: str, owner: str, deleted_at: datetime | None) -> Link:
        current = self._current(code, owner)
        deleted, listed = self._declared("deleted_at"), self._model.crawlable_key
        # In or out of robots.txt in the same write, from the link as read (see _keep_crawlable_key)
        if deleted_at is not None:
            actions = [deleted.set(deleted_at), listed.remove()]
        else:
            actions = [deleted.remove(), listed.set(CRAWLABLE) if current.crawlable else listed.remove()]
        self._stage_update(code, owner, actions)
        return replace(current, deleted_at=deleted_at)

    def move(self, link: Link, moved: Link, slug_key: str | None) -> None:
        self._current(link.key, link.owner)
        writes: list[Staged] = [partial(_put_new, item=self._item(moved), condition=self._model.code.does_not_exist())]
        if slug_key is not None:
            claim = self._claims(code=SLUG_CLAIM_PREFIX + slug_key, slug=moved.key)
            writes.append(partial(_put_new, item=claim, condition=self._claims.code.does_not_exist()))
        for write in writes:
            self._taking.add(len(self._staged))
            self._staged.append((link.key, write))
        unchanged = self._model.code.exists() & (self._declared("owner") == link.owner)
        old = self._model(code=link.key)
        self._staged.append((link.key, lambda transaction: transaction.delete(old, condition=unchanged)))

    def commit(self) -> None:
        if not self._staged:
            return
        try:
            with TransactWrite(connection=self.transaction_connection()) as transaction:
                for _, staged in self._staged:
                    staged(transaction)
        except TransactWriteError as error:
            reasons = [reason.code if reason is not None else None for reason in error.cancellation_reasons]
            failed: dict[str, ShortlinkError] = {}
            for index, ((key, _), reason) in enumerate(zip(self._staged, reasons, strict=False)):
                if reason == "ConditionalCheckFailed":  # taken meanwhile, or its owner or existence changed
                    code = split_key(key)[1]
                    failed.setdefault(key, CodeTaken(code) if index in self._taking else LinkNotFound(code))
            if failed:
                raise BulkRefused([LinkRefusal(key, refusal) for key, refusal in failed.items()]) from None
            raise unavailable(error) from error
        finally:
            self._staged = []
            self._taking = set()


def _put_new(transaction: TransactWrite, item: Model, condition: Condition) -> None:
    transaction.save(item, condition=condition)
