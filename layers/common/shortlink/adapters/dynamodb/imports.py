"""Imported links: the links table's repository, plus the claims of imported records without a
code, each written in one transaction with its link (as a slug and its claim are)."""

from copy import copy

from pynamodb.attributes import UnicodeAttribute
from pynamodb.exceptions import DoesNotExist, PynamoDBException, TransactWriteError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, unavailable
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
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

    def imported_code(self, import_key: str) -> str | None:
        try:
            claim = self._import_claims.get(IMPORT_CLAIM_PREFIX + import_key, consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error
        return str(claim.link_code)

    def claiming(self, import_key: str) -> "DynamoImportingLinks":
        claiming = copy(self)
        claiming._import_key = import_key
        return claiming

    def add(self, link: Link) -> None:
        if self._import_key is None:
            super().add(link)
            return
        claim = self._import_claims(code=IMPORT_CLAIM_PREFIX + self._import_key, link_code=link.code)
        try:
            with TransactWrite(connection=self.transaction_connection()) as transaction:
                transaction.save(self._item(link), condition=self._model.code.does_not_exist())
                transaction.save(claim, condition=self._import_claims.code.does_not_exist())
        except TransactWriteError as error:
            link_refused, claim_refused = (
                reason is not None and reason.code == "ConditionalCheckFailed"
                for reason in [*error.cancellation_reasons, None, None][:2]
            )
            if claim_refused:
                raise AlreadyImported(self.imported_code(self._import_key) or "") from None
            if link_refused:
                raise CodeTaken(link.code) from None
            raise unavailable(error) from error
