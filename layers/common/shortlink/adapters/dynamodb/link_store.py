"""The links repository (pynamodb): links and the claims of custom slugs, in the links table."""

import base64
import json
import operator
from collections.abc import Callable
from datetime import datetime
from functools import reduce
from typing import TYPE_CHECKING, Any

from pynamodb.attributes import Attribute as PynamoAttribute
from pynamodb.attributes import (
    BooleanAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, PynamoDBException, TransactWriteError
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.adapters.dynamodb.link_items import (
    ATTRIBUTES,
    CRAWLABLE,
    CRAWLABLE_INDEX,
    link_from_item,
    link_item,
    stored_attributes,
)
from shortlink.errors import CodeTaken, InvalidLinkOption, LinkNotFound, SlugTaken
from shortlink.links.model import Link, LinkChanges

# A custom slug's claim lives in the links table under a key no code can have ('~' is outside
# the code alphabet), so the redirect can never look one up.
SLUG_CLAIM_PREFIX = "~slug~"


class OwnerIndex(GlobalSecondaryIndex["LinkItem"]):  # type: ignore[no-untyped-call]
    """GET /links: a key's links, newest first (slug claims have no owner: not in the index)."""

    class Meta:
        index_name = "ByOwner"
        projection = AllProjection()

    owner = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class CrawlableIndex(GlobalSecondaryIndex["LinkItem"]):  # type: ignore[no-untyped-call]
    """GET /robots.txt: the codes of crawlable links, keys only (read by adapters/dynamodb/link_reader.py)."""

    class Meta:
        index_name = CRAWLABLE_INDEX
        projection = KeysOnlyProjection()

    crawlable_key = UnicodeAttribute(hash_key=True)
    code = UnicodeAttribute(range_key=True)


# The pynamodb attribute that declares each kind of attribute of the codec (link_items.ATTRIBUTES).
_DECLARED_AS: dict[str, Callable[[], Any]] = {
    "text": lambda: UnicodeAttribute(null=True),
    "moment": lambda: UTCDateTimeAttribute(null=True),
    "number": lambda: NumberAttribute(null=True),
    "flag": lambda: BooleanAttribute(null=True),
    "texts": lambda: ListAttribute[UnicodeAttribute](of=UnicodeAttribute, null=True),
    "fields": lambda: MapAttribute[str, str](null=True),  # type: ignore[no-untyped-call]  # untyped constructor
}


class LinkItem(Model):
    """A link's item: each Link field's attribute declared from the codec's table, the one schema
    (adapters/dynamodb/link_items.py), beside the key and the attributes derived from them."""

    class Meta(TableMeta):
        pass

    by_owner = OwnerIndex()
    crawlable_links = CrawlableIndex()

    code = UnicodeAttribute(hash_key=True)
    expires_at_epoch = NumberAttribute(null=True)  # the table's TTL attribute
    clicks_used = NumberAttribute(null=True)  # counted by the redirect (adapters/dynamodb/click_budget.py)
    crawlable_key = UnicodeAttribute(null=True)  # CRAWLABLE while crawlable (a sparse index's key)
    # A link of another domain than the default: its host (also in its key, `<host>/<code>`),
    # for GET /links?domain=; absent on the default domain's, as on every link before domains.
    domain = UnicodeAttribute(null=True)
    # Class scope: locals() is the namespace pynamodb's metaclass reads the declarations from.
    locals().update({name: _DECLARED_AS[attribute.kind]() for name, attribute in ATTRIBUTES.items()})
    if TYPE_CHECKING:  # mypy cannot see generated declarations: an item's attributes read as Any

        def __getattr__(self, name: str) -> Any: ...


class SlugClaimItem(Model):
    """The claim of a folded slug (see shortlink.links.slugs); never removed, so never reused."""

    class Meta(TableMeta):
        pass

    code = UnicodeAttribute(hash_key=True)  # SLUG_CLAIM_PREFIX + slug key
    slug = UnicodeAttribute()


class DynamoLinkRepository:
    def __init__(self, table_name: str, region: str | None = None) -> None:
        self._model = bound_model(LinkItem, table_name, region)
        self._claims = bound_model(SlugClaimItem, table_name, region)
        self._region = region

    def transaction_connection(self) -> Connection:
        """A connection to the table's region, for transactions."""
        return Connection(region=self._region)

    def _declared(self, name: str) -> PynamoAttribute[Any]:
        """A Link field's attribute, as declared from the codec (see LinkItem)."""
        return self._model.get_attributes()[name]

    def _item(self, link: Link) -> LinkItem:
        return self._model.from_raw_data(link_item(link))

    def add(self, link: Link) -> None:
        try:
            self._item(link).save(condition=self._model.code.does_not_exist())
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                raise CodeTaken(link.key) from None
            raise unavailable(error) from error

    def written_with(self, link: Link, transaction: TransactWrite) -> None:
        """Add what else a new link's transaction writes (none here; an import's audit entry)."""

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        claim = self._claims(code=SLUG_CLAIM_PREFIX + slug_key, slug=link.key)
        try:
            with TransactWrite(connection=self.transaction_connection()) as transaction:
                transaction.save(self._item(link), condition=self._model.code.does_not_exist())
                transaction.save(claim, condition=self._claims.code.does_not_exist())
                self.written_with(link, transaction)
        except TransactWriteError as error:
            reasons = [reason.code for reason in error.cancellation_reasons if reason is not None]
            if "ConditionalCheckFailed" in reasons:
                raise SlugTaken(link.code) from None
            raise unavailable(error) from error

    def existing_codes(self, codes: list[str]) -> set[str]:
        try:
            # pynamodb sends 100 keys a request and retries the unprocessed ones.
            found = self._model.batch_get(codes, attributes_to_get=["code"])
            return {item.code for item in found}
        except PynamoDBException as error:
            raise unavailable(error) from error

    def is_claimed(self, slug_key: str) -> bool:
        try:
            self._claims.get(SLUG_CLAIM_PREFIX + slug_key, attributes_to_get=["code"])
        except DoesNotExist:
            return False
        except PynamoDBException as error:
            raise unavailable(error) from error
        return True

    def get(self, code: str) -> Link | None:
        try:
            # Strongly consistent: a link is followable the moment its create call returns.
            item = self._model.get(code, consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error
        return _to_link(item)

    def _owned_update(self, code: str, owner: str, actions: list[Any]) -> Link:
        item = self._model(code=code)
        try:
            item.update(actions=actions, condition=self._model.code.exists() & (self._declared("owner") == owner))
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                raise LinkNotFound(code) from None
            raise unavailable(error) from error
        self._keep_crawlable_key(item)
        return _to_link(item)

    def _keep_crawlable_key(self, item: "LinkItem") -> None:
        """Keep a link in the Crawlable index (robots.txt) exactly while it is crawlable and not
        deleted. One update cannot derive the key from attributes it does not write: a restore,
        or an edit of a deleted link, learns them from the item it returns and writes the key in
        a second, rarer update, conditioned on what it read (a concurrent change, which sets its
        own key, wins)."""
        model = self._model
        listed = bool(item.crawlable) and item.deleted_at is None
        if listed == (item.crawlable_key is not None):
            return
        # A flag is stored only while true: its existence is the condition.
        crawlable, deleted = self._declared("crawlable").exists(), self._declared("deleted_at").exists()
        if listed:
            action, condition = model.crawlable_key.set(CRAWLABLE), crawlable & ~deleted
        else:
            action, condition = model.crawlable_key.remove(), ~crawlable | deleted
        try:
            item.update(actions=[action], condition=condition)
        except PynamoDBException as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise unavailable(error) from error

    def _edit_actions(self, changes: LinkChanges) -> list[Any]:
        """The update actions of an edit: set each value it writes, remove each it clears."""
        attributes = self._model.get_attributes()
        actions: list[Any] = []
        for name, value in stored_attributes(changes.stored_values()).items():
            attribute = attributes[name]
            actions.append(
                attribute.remove()
                if value is None
                else attribute.set(attribute.deserialize(attribute.get_value(value)))
            )
        return actions

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        actions = self._edit_actions(changes)
        if not actions:
            found = self.get(code)
            if found is None or found.owner != owner:
                raise LinkNotFound(code)
            return found
        return self._owned_update(code, owner, actions)

    def set_deleted(self, code: str, owner: str, deleted_at: datetime | None) -> Link:
        deleted = self._declared("deleted_at")
        if deleted_at is None:
            return self._owned_update(code, owner, [deleted.remove()])
        # Out of robots.txt in the same write (a restore puts a crawlable link back)
        return self._owned_update(code, owner, [deleted.set(deleted_at), self._model.crawlable_key.remove()])

    def list_for_owner(
        self,
        owner: str,
        limit: int,
        cursor: str | None,
        tag: str | None,
        utm_campaign: str | None = None,
        domain: str | None = None,
    ) -> tuple[list[Link], str | None]:
        start = _decode_cursor(cursor) if cursor else None
        if start is not None and start.get("owner") != {"S": owner}:
            raise InvalidLinkOption("cursor", "cursor is not one this API gave out")
        filters: list[Any] = []
        if tag:
            filters.append(self._declared("tags").contains(tag))
        if utm_campaign:
            filters.append(self._declared("utm")["campaign"] == utm_campaign)
        if domain is not None:  # "": the default domain, whose links carry no domain attribute
            filters.append(self._model.domain == domain if domain else self._model.domain.does_not_exist())
        condition = reduce(operator.and_, filters) if filters else None
        links: list[Link] = []
        try:
            # A tag filter applies after the read: keep reading until the page is full.
            while True:
                page = self._model.by_owner.query(
                    owner,
                    filter_condition=condition,
                    scan_index_forward=False,
                    limit=limit - len(links),
                    last_evaluated_key=start,
                )
                links.extend(_to_link(item) for item in page)
                start = page.last_evaluated_key
                if start is None or len(links) >= limit:
                    break
        except PynamoDBException as error:
            raise unavailable(error) from error
        return links, _encode_cursor(start) if start else None


def _encode_cursor(key: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> dict[str, Any]:
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except ValueError:
        raise InvalidLinkOption("cursor", "cursor is not one this API gave out") from None
    # Exactly the key of the ByOwner index, all strings: anything else is not ours.
    well_formed = (
        isinstance(key, dict)
        and set(key) == {"code", "owner", "created_at"}
        and all(
            isinstance(value, dict) and set(value) == {"S"} and isinstance(value["S"], str) for value in key.values()
        )
    )
    if not well_formed:
        raise InvalidLinkOption("cursor", "cursor is not one this API gave out")
    return dict(key)


def _to_link(item: LinkItem) -> Link:
    return link_from_item(item.serialize())
