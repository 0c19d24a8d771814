"""DynamoDB adapters (pynamodb) for webhook endpoints, and the owners of the links clicks name.

An endpoint is one item under its owner's key (owner, endpoint_id): a key's endpoints are one
Query. Its failure count and disabled mark live on it, written only when they change.
"""

from datetime import datetime
from typing import Any, cast

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import PynamoDBException
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.adapters.dynamodb.link_store import LinkItem
from shortlink.webhooks.deliveries import LinkOwnership
from shortlink.webhooks.endpoints import Endpoint, EndpointChanged, EndpointNotFound, TooManyEndpoints

BATCH_GET_LIMIT = 100  # DynamoDB's BatchGetItem maximum


class EndpointItem(Model):
    class Meta(TableMeta):
        pass

    owner = UnicodeAttribute(hash_key=True)
    endpoint_id = UnicodeAttribute(range_key=True)
    url = UnicodeAttribute()
    events = ListAttribute[UnicodeAttribute](of=UnicodeAttribute)
    tags = ListAttribute[UnicodeAttribute](of=UnicodeAttribute, null=True)
    secret = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
    disabled_at = UTCDateTimeAttribute(null=True)
    consecutive_failures = NumberAttribute(null=True)
    expires_at = UTCDateTimeAttribute(null=True)  # the registering key's; absent: never
    previous_secret = UnicodeAttribute(null=True)  # a rotation's, signing beside `secret` until
    previous_secret_until = UTCDateTimeAttribute(null=True)


def _to_endpoint(item: EndpointItem) -> Endpoint:
    return Endpoint(
        owner=item.owner,
        endpoint_id=item.endpoint_id,
        url=item.url,
        events=tuple(str(event) for event in item.events),
        tags=tuple(str(tag) for tag in item.tags or ()),
        secret=item.secret,
        created_at=item.created_at,
        disabled_at=item.disabled_at,
        consecutive_failures=int(item.consecutive_failures or 0),
        expires_at=item.expires_at,
        previous_secret=item.previous_secret,
        previous_secret_until=item.previous_secret_until,
    )


class DynamoEndpointStore:
    def __init__(self, table_name: str, region: str | None = None) -> None:
        self._model = bound_model(EndpointItem, table_name, region)

    def add(self, endpoint: Endpoint, limit: int) -> None:
        try:
            if self._model.count(endpoint.owner) >= limit:
                raise TooManyEndpoints(f"at most {limit} webhook endpoints per account")
            self._model(
                owner=endpoint.owner,
                endpoint_id=endpoint.endpoint_id,
                url=endpoint.url,
                events=list(endpoint.events),
                tags=list(endpoint.tags) or None,
                secret=endpoint.secret,
                created_at=endpoint.created_at,
                expires_at=endpoint.expires_at,
            ).save(condition=self._model.endpoint_id.does_not_exist())
        except PynamoDBException as error:
            raise unavailable(error) from error

    def list_for_owner(self, owner: str) -> list[Endpoint]:
        try:
            return [_to_endpoint(item) for item in self._model.query(owner)]
        except PynamoDBException as error:
            raise unavailable(error) from error

    def get(self, owner: str, endpoint_id: str) -> Endpoint | None:
        try:
            item = self._model.get(owner, endpoint_id)
        except self._model.DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error
        return _to_endpoint(item)

    def delete(self, owner: str, endpoint_id: str) -> bool:
        try:
            self._model(owner=owner, endpoint_id=endpoint_id).delete(condition=self._model.endpoint_id.exists())
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def _update(self, owner: str, endpoint_id: str, actions: list[Any]) -> EndpointItem:
        return self._update_if(owner, endpoint_id, actions, self._model.endpoint_id.exists())

    def replace(self, was: Endpoint, now: Endpoint) -> Endpoint:
        """Write `now`'s address, events, tags, enabled state and secrets over the stored `was`,
        if it is still as read (else EndpointChanged, or EndpointNotFound if it is gone)."""
        model = self._model
        actions: list[Any] = [
            model.url.set(now.url),
            model.events.set(cast(Any, list(now.events))),
            model.tags.set(cast(Any, list(now.tags))) if now.tags else model.tags.remove(),
            model.secret.set(now.secret),
        ]
        if now.disabled_at is None:
            actions += [model.disabled_at.remove(), model.consecutive_failures.set(0)]
        if now.previous_secret is not None and now.previous_secret_until is not None:
            actions += [
                model.previous_secret.set(now.previous_secret),
                model.previous_secret_until.set(now.previous_secret_until),
            ]
        # The secret read is the one replaced: of two rotations at once, one wins.
        unchanged = model.endpoint_id.exists() & (model.secret == was.secret) & (model.url == was.url)
        try:
            item = self._update_if(was.owner, was.endpoint_id, actions, unchanged)
        except EndpointNotFound:
            if self.get(was.owner, was.endpoint_id) is None:
                raise
            raise EndpointChanged(was.endpoint_id) from None
        return _to_endpoint(item)

    def _update_if(self, owner: str, endpoint_id: str, actions: list[Any], condition: Any) -> EndpointItem:
        item = self._model(owner=owner, endpoint_id=endpoint_id)
        try:
            item.update(actions=actions, condition=condition)
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                raise EndpointNotFound(endpoint_id) from None
            raise unavailable(error) from error
        return item

    def record_failure(self, owner: str, endpoint_id: str) -> int:
        """Count a failed attempt; the endpoint's failures since its last success."""
        item = self._update(owner, endpoint_id, [self._model.consecutive_failures.add(1)])
        return int(item.consecutive_failures or 0)

    def record_success(self, owner: str, endpoint_id: str) -> None:
        self._update(owner, endpoint_id, [self._model.consecutive_failures.set(0)])

    def disable(self, owner: str, endpoint_id: str, at: datetime) -> None:
        self._update(owner, endpoint_id, [self._model.disabled_at.set(at)])


class DynamoLinkOwners:
    """Who owns the links a click event names, and their tags: one BatchGetItem per 100 codes,
    reading only those two attributes."""

    def __init__(self, table_name: str) -> None:
        self._model = bound_model(LinkItem, table_name)

    def of(self, codes: list[str]) -> dict[str, LinkOwnership]:
        found: dict[str, LinkOwnership] = {}
        try:
            for start in range(0, len(codes), BATCH_GET_LIMIT):
                chunk = codes[start : start + BATCH_GET_LIMIT]
                for item in self._model.batch_get(chunk, attributes_to_get=["code", "owner", "tags"]):
                    found[item.code] = LinkOwnership(item.owner, tuple(str(tag) for tag in item.tags or ()))
        except PynamoDBException as error:
            raise unavailable(error) from error
        return found
