"""Workspaces' domain claims (pynamodb), as items of the API keys table under `domain#<name>`:
one item per name, so one conditional put decides which workspace holds it. Written and read in
the home region, where the workspace's settings live; a workspace's list is a filtered scan of
the small table, as its members' is."""

from datetime import datetime

from pynamodb.attributes import UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.domains.claims import WorkspaceDomain
from shortlink.domains.errors import DomainNotFound, DomainTaken

DOMAIN = "domain"


class DomainClaimItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")  # the table's key
    kind = UnicodeAttribute(attr_name="item_kind")
    name = UnicodeAttribute(attr_name="domain_name")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")
    token = UnicodeAttribute(attr_name="domain_token")
    added_at = UTCDateTimeAttribute(attr_name="added_at")
    verified_at = UTCDateTimeAttribute(null=True, attr_name="verified_at")


def claim_key(name: str) -> str:
    return f"{DOMAIN}#{name}"


def _domain(item: DomainClaimItem) -> WorkspaceDomain:
    return WorkspaceDomain(item.name, item.workspace_id, item.token, item.added_at, item.verified_at)


class DynamoDomainClaims:
    """DomainClaims over the API keys table."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._items = bound_model(DomainClaimItem, table_name, home_region)

    def claim(self, domain: WorkspaceDomain) -> None:
        item = self._items(
            item_key=claim_key(domain.name), kind=DOMAIN, name=domain.name, workspace_id=domain.workspace,
            token=domain.token, added_at=domain.added_at,
        )  # fmt: skip
        try:
            item.save(condition=self._items.item_key.does_not_exist())
        except PynamoDBException as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise unavailable(error) from error
            holder = self.claim_of(domain.name)
            raise DomainTaken(domain.name, holder is not None and holder.workspace == domain.workspace) from None

    def claim_of(self, name: str) -> WorkspaceDomain | None:
        try:
            return _domain(self._items.get(claim_key(name), consistent_read=True))
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def of_workspace(self, workspace: str) -> list[WorkspaceDomain]:
        condition = (self._items.kind == DOMAIN) & (self._items.workspace_id == workspace)
        try:
            found = [_domain(item) for item in self._items.scan(condition, consistent_read=True)]
        except PynamoDBException as error:
            raise unavailable(error) from error
        return sorted(found, key=lambda each: each.name)

    def mark_verified(self, name: str, workspace: str, at: datetime) -> WorkspaceDomain:
        item = self._items(item_key=claim_key(name))
        try:
            item.update(
                actions=[self._items.verified_at.set(at)],
                condition=self._items.item_key.exists() & (self._items.workspace_id == workspace),
            )
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                raise DomainNotFound(name) from None
            raise unavailable(error) from error
        return _domain(item)

    def release(self, name: str, workspace: str) -> None:
        try:
            self._items(item_key=claim_key(name)).delete(condition=self._items.workspace_id == workspace)
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                raise DomainNotFound(name) from None
            raise unavailable(error) from error
