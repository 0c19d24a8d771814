"""DynamoDB adapters (pynamodb) for links, API keys, the id counter and rate-limit windows.

Table names come from configuration at run time, so each model is bound to its table (and, for
the home region's tables of a deployment in several regions, to that region) by `bound_model`;
the endpoint comes from botocore's own settings (AWS_ENDPOINT_URL locally).
"""

import base64
import json
import operator
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import reduce
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pynamodb.attributes import Attribute as PynamoAttribute
from pynamodb.attributes import (
    BooleanAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, PynamoDBException, TransactWriteError
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.access.api_keys import ALL_SCOPES, ApiKey
from shortlink.adapters.botocore_clients import CONNECT_TIMEOUT_SECONDS, MAX_ATTEMPTS, READ_TIMEOUT_SECONDS
from shortlink.adapters.dynamodb.link_items import (
    ATTRIBUTES,
    CRAWLABLE,
    CRAWLABLE_INDEX,
    link_from_item,
    link_item,
    stored_attributes,
)
from shortlink.codes.partitions import SINGLE_COUNTER
from shortlink.errors import CodeTaken, InvalidLinkOption, LinkNotFound, SlugTaken, StorageUnavailable
from shortlink.links.model import Link, LinkChanges

ModelT = TypeVar("ModelT", bound=Model)

# A custom slug's claim lives in the links table under a key no code can have ('~' is outside
# the code alphabet), so the redirect can never look one up.
SLUG_CLAIM_PREFIX = "~slug~"


class _Meta:
    table_name = "unbound"
    connect_timeout_seconds = CONNECT_TIMEOUT_SECONDS
    read_timeout_seconds = READ_TIMEOUT_SECONDS
    max_retry_attempts = MAX_ATTEMPTS


class OwnerIndex(GlobalSecondaryIndex["LinkItem"]):  # type: ignore[no-untyped-call]
    """GET /links: a key's links, newest first (slug claims have no owner: not in the index)."""

    class Meta:
        index_name = "ByOwner"
        projection = AllProjection()

    owner = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class CrawlableIndex(GlobalSecondaryIndex["LinkItem"]):  # type: ignore[no-untyped-call]
    """GET /robots.txt: the codes of crawlable links, keys only (read by adapters/dynamodb_redirect)."""

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

    class Meta(_Meta):
        pass

    by_owner = OwnerIndex()
    crawlable_links = CrawlableIndex()

    code = UnicodeAttribute(hash_key=True)
    expires_at_epoch = NumberAttribute(null=True)  # the table's TTL attribute
    clicks_used = NumberAttribute(null=True)  # counted by the redirect (adapters/dynamodb_redirect)
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

    class Meta(_Meta):
        pass

    code = UnicodeAttribute(hash_key=True)  # SLUG_CLAIM_PREFIX + slug key
    slug = UnicodeAttribute()


class ApiKeyItem(Model):
    class Meta(_Meta):
        pass

    key_hash = UnicodeAttribute(hash_key=True)
    key_id = UnicodeAttribute()
    name = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
    revoked = BooleanAttribute(default=False)
    scopes = UnicodeSetAttribute(null=True)  # absent on keys made before scopes: full access
    expires_at = UTCDateTimeAttribute(null=True)
    last_used_on = UnicodeAttribute(null=True)  # ISO date, so that days compare as strings
    owner = UnicodeAttribute(null=True)  # the account; absent: the key's own
    session_generation = NumberAttribute(null=True)  # absent: 0, no Sign out yet


class CounterItem(Model):
    class Meta(_Meta):
        pass

    name = UnicodeAttribute(hash_key=True)
    value = NumberAttribute(default=0)
    expires_at_epoch = NumberAttribute(null=True)  # the table's TTL attribute (rate windows)
    attempts = ListAttribute[NumberAttribute](of=NumberAttribute, null=True)  # an attempt log's times
    version = NumberAttribute(null=True)  # an attempt log's, one more on each write


def bound_model(model: type[ModelT], table_name: str, region: str | None = None) -> type[ModelT]:
    """A subclass of `model` that reads and writes `table_name` (in `region`, else the function's own)."""
    meta = type("Meta", (_Meta,), {"table_name": table_name, "region": region})
    return cast(type[ModelT], type(model.__name__, (model,), {"Meta": meta}))


def _error_code(error: PynamoDBException) -> str:
    return getattr(error, "cause_response_code", None) or ""


def _unavailable(error: PynamoDBException) -> StorageUnavailable:
    return StorageUnavailable(f"DynamoDB request failed: {_error_code(error) or error}")


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
            if _error_code(error) == "ConditionalCheckFailedException":
                raise CodeTaken(link.key) from None
            raise _unavailable(error) from error

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        claim = self._claims(code=SLUG_CLAIM_PREFIX + slug_key, slug=link.key)
        try:
            with TransactWrite(connection=self.transaction_connection()) as transaction:
                transaction.save(self._item(link), condition=self._model.code.does_not_exist())
                transaction.save(claim, condition=self._claims.code.does_not_exist())
        except TransactWriteError as error:
            reasons = [reason.code for reason in error.cancellation_reasons if reason is not None]
            if "ConditionalCheckFailed" in reasons:
                raise SlugTaken(link.code) from None
            raise _unavailable(error) from error

    def existing_codes(self, codes: list[str]) -> set[str]:
        try:
            # pynamodb sends 100 keys a request and retries the unprocessed ones.
            found = self._model.batch_get(codes, attributes_to_get=["code"])
            return {item.code for item in found}
        except PynamoDBException as error:
            raise _unavailable(error) from error

    def is_claimed(self, slug_key: str) -> bool:
        try:
            self._claims.get(SLUG_CLAIM_PREFIX + slug_key, attributes_to_get=["code"])
        except DoesNotExist:
            return False
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return True

    def get(self, code: str) -> Link | None:
        try:
            # Strongly consistent: a link is followable the moment its create call returns.
            item = self._model.get(code, consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return _to_link(item)

    def _owned_update(self, code: str, owner: str, actions: list[Any]) -> Link:
        item = self._model(code=code)
        try:
            item.update(actions=actions, condition=self._model.code.exists() & (self._declared("owner") == owner))
        except PynamoDBException as error:
            if _error_code(error) == "ConditionalCheckFailedException":
                raise LinkNotFound(code) from None
            raise _unavailable(error) from error
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
            if _error_code(error) != "ConditionalCheckFailedException":
                raise _unavailable(error) from error

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        attributes = self._model.get_attributes()
        actions: list[Any] = []
        for name, value in stored_attributes(changes.stored_values()).items():
            attribute = attributes[name]
            actions.append(
                attribute.remove()
                if value is None
                else attribute.set(attribute.deserialize(attribute.get_value(value)))
            )
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
            raise _unavailable(error) from error
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


def _python_value(attribute: Any, value: dict[str, Any]) -> Any:
    """The codec's stored value as the pynamodb attribute that declares it reads it."""
    return attribute.deserialize(attribute.get_value(value))


def _to_link(item: LinkItem) -> Link:
    return link_from_item(item.serialize())


class DynamoCounterStore:
    """The id counter: one item, one `UpdateItem ADD ... RETURN UPDATED_NEW` per block."""

    def __init__(self, table_name: str, counter_name: str = SINGLE_COUNTER) -> None:
        self._model = bound_model(CounterItem, table_name)
        self._counter_name = counter_name

    def reserve(self, count: int) -> int:
        item = self._model(name=self._counter_name)
        try:
            item.update(actions=[self._model.value.add(count)])
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return int(item.value)


class DynamoWindowCounter:
    """Rate limits in the counters table: fixed windows (one conditional `ADD` per use) and
    attempt logs (one item per subject: a GetItem, then an UpdateItem conditional on its version).
    In a deployment of several regions each region counts in items of its own (`region`: a last
    suffix of the key), never one another's: a limit then holds per region, so at most regions x
    limit in all."""

    def __init__(self, table_name: str, region: str | None = None) -> None:
        self._model = bound_model(CounterItem, table_name)
        self._suffix = f"#{region}" if region else ""

    def _window(self, subject: str, window: int) -> "CounterItem":
        return self._model(name=f"{subject}#{window}{self._suffix}")

    def take(self, subject: str, window: int, limit: int, expires_at_epoch: int) -> bool:
        item = self._window(subject, window)
        try:
            item.update(
                actions=[self._model.value.add(1), self._model.expires_at_epoch.set(expires_at_epoch)],
                condition=self._model.value.does_not_exist() | (self._model.value < limit),
            )
        except PynamoDBException as error:
            if _error_code(error) == "ConditionalCheckFailedException":
                return False
            raise _unavailable(error) from error
        return True

    def attempts(self, subject: str) -> tuple[list[float], int]:
        """An attempt log (shortlink.access.rate_limits.AttemptLog): one consistent GetItem."""
        try:
            item = self._model.get(f"{subject}#log{self._suffix}", consistent_read=True)
        except DoesNotExist:
            return [], 0
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return [float(time) for time in cast(list[float], item.attempts or [])], int(item.version or 0)

    def record_attempts(self, subject: str, times: list[float], version: int, expires_at_epoch: int) -> bool:
        """One UpdateItem on the condition that the log is still at `version`."""
        model = self._model
        actions: list[Any] = [
            model.attempts.set(cast(Any, times)),  # pynamodb's stubs type a list of numbers as attributes
            model.version.set(version + 1),
            model.expires_at_epoch.set(expires_at_epoch),
        ]
        condition = model.name.does_not_exist() if version == 0 else model.version == version
        try:
            model(name=f"{subject}#log{self._suffix}").update(actions=actions, condition=condition)
        except PynamoDBException as error:
            if _error_code(error) == "ConditionalCheckFailedException":
                return False
            raise _unavailable(error) from error
        return True

    def give_back(self, subject: str, window: int) -> None:
        item = self._window(subject, window)
        try:
            item.update(actions=[self._model.value.add(-1)], condition=self._model.value > 0)
        except PynamoDBException as error:
            if _error_code(error) != "ConditionalCheckFailedException":
                raise _unavailable(error) from error


class DynamoApiKeyStore:
    """API keys; in a deployment of several regions every write and listing goes to the home
    region's table, and away from home a lookup reads this `region`'s replica first, the home's
    only for a key not (yet) replicated here."""

    def __init__(self, table_name: str, home_region: str | None = None, region: str | None = None) -> None:
        self._model = bound_model(ApiKeyItem, table_name, home_region)
        self._replica = bound_model(ApiKeyItem, table_name, region) if region != home_region else self._model

    @staticmethod
    def _to_domain(item: ApiKeyItem) -> ApiKey:
        return ApiKey(
            key_id=item.key_id,
            name=item.name,
            created_at=item.created_at,
            revoked=bool(item.revoked),
            scopes=frozenset(item.scopes) if item.scopes is not None else ALL_SCOPES,
            expires_at=item.expires_at,
            last_used_on=date.fromisoformat(item.last_used_on) if item.last_used_on else None,
            owner=item.owner or "",
            session_generation=int(item.session_generation or 0),
        )

    def find_by_hash(self, key_hash: str) -> ApiKey | None:
        for model in dict.fromkeys((self._replica, self._model)):
            try:
                return self._to_domain(model.get(key_hash))
            except DoesNotExist:
                continue
            except PynamoDBException as error:
                raise _unavailable(error) from error
        return None

    def add(
        self,
        key_hash: str,
        key_id: str,
        name: str,
        *,
        scopes: frozenset[str] = ALL_SCOPES,
        expires_at: datetime | None = None,
        owner: str = "",
    ) -> ApiKey:
        item = self._model(
            key_hash=key_hash,
            key_id=key_id,
            name=name,
            created_at=datetime.now(UTC),
            scopes=set(scopes),
            expires_at=expires_at,
            owner=owner or None,
        )
        try:
            item.save(condition=self._model.key_hash.does_not_exist())
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return self._to_domain(item)

    def mark_used(self, key_hash: str, day: date) -> None:
        """One conditional update: only a later day than the one recorded is written."""
        model = self._model
        used = model.last_used_on
        try:
            model(key_hash=key_hash).update(
                actions=[used.set(day.isoformat())],
                condition=model.key_hash.exists() & (used.does_not_exist() | (used < day.isoformat())),
            )
        except PynamoDBException as error:
            if _error_code(error) != "ConditionalCheckFailedException":  # another request recorded it
                raise _unavailable(error) from error

    def end_sessions(self, key_hash: str) -> None:
        """One `ADD` to the key's session generation (shortlink.console.sessions)."""
        model = self._model
        try:
            model(key_hash=key_hash).update(
                actions=[model.session_generation.add(1)], condition=model.key_hash.exists()
            )
        except PynamoDBException as error:
            if _error_code(error) != "ConditionalCheckFailedException":  # no such key: nothing to end
                raise _unavailable(error) from error

    def list_keys(self, owner: str | None = None) -> list[ApiKey]:
        """Every key, or every key of `owner`'s account (a scan of a small table, for admins)."""
        model = self._model
        # A key without an owner is its own account's.
        of_owner = (model.owner == owner) | (model.owner.does_not_exist() & (model.key_id == owner))
        try:
            keys = [self._to_domain(item) for item in model.scan(of_owner if owner is not None else None)]
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return sorted(keys, key=lambda key: key.created_at)

    def revoke(self, key_id: str, owner: str | None = None) -> bool:
        """Mark the key revoked (only if it is of `owner`'s account, when given); False if no
        such key."""
        found = False
        try:
            for item in self._model.scan(self._model.key_id == key_id):
                if owner is not None and self._to_domain(item).owner != owner:
                    continue
                item.update(actions=[self._model.revoked.set(True)], condition=self._model.key_hash.exists())
                found = True
        except PynamoDBException as error:
            raise _unavailable(error) from error
        return found
