"""Imported links: the links table's repository, plus the claims of imported records without a
code, each written in one transaction with its link (as a slug and its claim are), and, where
the import is recorded, each link's audit entry in that same transaction: no link without its
entry, no entry without its link."""

from collections.abc import Callable
from copy import copy

from pynamodb.attributes import UnicodeAttribute
from pynamodb.exceptions import DoesNotExist, PynamoDBException, TransactWriteError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, unavailable
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.audit.model import AuditEntry
from shortlink.errors import CodeTaken
from shortlink.links.model import Link
from shortlink.transfer.imports import AlreadyImported

# Outside the code alphabet, like a slug's claim: the redirect never looks one up.
IMPORT_CLAIM_PREFIX = "~import~"


class ImportClaimItem(Model):
    """An imported record's claim: never removed, so a re-run of the import finds it."""

    class Meta(TableMeta):
        pass

    code = UnicodeAttribute(hash_key=True)  # IMPORT_CLAIM_PREFIX + the record's import key
    link_code = UnicodeAttribute()


class DynamoImportingLinks(DynamoLinkRepository):
    def __init__(self, table_name: str, region: str | None = None) -> None:
        super().__init__(table_name, region)
        self._import_claims = bound_model(ImportClaimItem, table_name, region)
        self._import_key: str | None = None
        self._audit: tuple[DynamoAuditTrail, Callable[[Link], AuditEntry]] | None = None
        self._recorded: list[AuditEntry] = []
        self._pending: AuditEntry | None = None  # the entry of the transaction being written

    def imported_code(self, import_key: str) -> str | None:
        try:
            claim = self._import_claims.get(IMPORT_CLAIM_PREFIX + import_key, consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error
        return str(claim.link_code)

    def recording(self, trail: DynamoAuditTrail, entry_of: Callable[[Link], AuditEntry]) -> "DynamoImportingLinks":
        """This repository, whose new links are each written with their audit entry (`entry_of`
        the link) in one transaction; `recorded()` lists the entries written."""
        recording = copy(self)
        recording._audit, recording._recorded = (trail, entry_of), []
        return recording

    def recorded(self) -> list[AuditEntry]:
        return list(self._recorded)

    def written_with(self, link: Link, transaction: TransactWrite) -> None:
        if self._audit is None:
            return
        trail, entry_of = self._audit
        self._pending = entry_of(link)
        trail.put_in(transaction, self._pending)

    def _committed(self) -> None:
        if self._pending is not None:
            self._recorded.append(self._pending)  # a list its copies share
            self._pending = None

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        self._pending = None
        super().add_with_slug(link, slug_key)
        self._committed()

    def claiming(self, import_key: str) -> "DynamoImportingLinks":
        claiming = copy(self)
        claiming._import_key = import_key
        return claiming

    def add(self, link: Link) -> None:
        if self._import_key is None and self._audit is None:
            super().add(link)
            return
        self._pending = None
        try:
            with TransactWrite(connection=self.transaction_connection()) as transaction:
                transaction.save(self._item(link), condition=self._model.code.does_not_exist())
                if self._import_key is not None:
                    claimed = IMPORT_CLAIM_PREFIX + self._import_key
                    claim = self._import_claims(code=claimed, link_code=link.code)
                    transaction.save(claim, condition=self._import_claims.code.does_not_exist())
                self.written_with(link, transaction)
        except TransactWriteError as error:
            link_refused, claim_refused = (
                reason is not None and reason.code == "ConditionalCheckFailed"
                for reason in [*error.cancellation_reasons, None, None][:2]
            )
            if claim_refused and self._import_key is not None:
                raise AlreadyImported(self.imported_code(self._import_key) or "") from None
            if link_refused:
                raise CodeTaken(link.code) from None
            raise unavailable(error) from error
        self._committed()
