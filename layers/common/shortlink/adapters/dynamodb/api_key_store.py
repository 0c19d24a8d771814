"""API keys (pynamodb), in the API keys table."""

from datetime import UTC, date, datetime

from pynamodb.attributes import (
    BooleanAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.models import Model

from shortlink.access.api_keys import ALL_SCOPES, ApiKey
from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.errors import StorageUnavailable


class ApiKeyItem(Model):
    class Meta(TableMeta):
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
    maker = UnicodeAttribute(null=True)  # the person it acts for; absent: nobody
    maker_email = UnicodeAttribute(null=True)


class DynamoApiKeyStore:
    """API keys; in a deployment of several regions every write and listing goes to the home
    region's table, and away from home a lookup reads this `region`'s replica first, the home's
    only for a key not (yet) replicated here; a `fresh` lookup (before a write) reads the home
    region's item, strongly consistent, so that no write follows a revocation that has returned
    (this region's replica while the home region cannot be reached)."""

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
            maker=item.maker or "",
            maker_email=item.maker_email or "",
        )

    def find_by_hash(self, key_hash: str, *, fresh: bool = False) -> ApiKey | None:
        if fresh:
            try:
                return self._get(self._model, key_hash, consistent=True)
            except StorageUnavailable:
                if self._replica is self._model:
                    raise
                # The home region is out of reach, so no revocation returns meanwhile; one made in
                # the replication lag before the outage may not be here yet (docs/regions.md).
                return self._get(self._replica, key_hash, consistent=False)
        for model in dict.fromkeys((self._replica, self._model)):
            if (key := self._get(model, key_hash, consistent=False)) is not None:
                return key
        return None

    def _get(self, model: type[ApiKeyItem], key_hash: str, consistent: bool) -> ApiKey | None:
        try:
            return self._to_domain(model.get(key_hash, consistent_read=consistent))
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def add(
        self,
        key_hash: str,
        key_id: str,
        name: str,
        *,
        scopes: frozenset[str] = ALL_SCOPES,
        expires_at: datetime | None = None,
        owner: str = "",
        maker: str = "",
        maker_email: str = "",
    ) -> ApiKey:
        item = self._model(
            key_hash=key_hash,
            key_id=key_id,
            name=name,
            created_at=datetime.now(UTC),
            scopes=set(scopes),
            expires_at=expires_at,
            owner=owner or None,
            maker=maker or None,
            maker_email=maker_email or None,
        )
        try:
            item.save(condition=self._model.key_hash.does_not_exist())
        except PynamoDBException as error:
            raise unavailable(error) from error
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
            if error_code(error) != "ConditionalCheckFailedException":  # another request recorded it
                raise unavailable(error) from error

    def end_sessions(self, key_hash: str) -> None:
        """One `ADD` to the key's session generation (shortlink.console.sessions)."""
        model = self._model
        try:
            model(key_hash=key_hash).update(
                actions=[model.session_generation.add(1)], condition=model.key_hash.exists()
            )
        except PynamoDBException as error:
            if error_code(error) != "ConditionalCheckFailedException":  # no such key: nothing to end
                raise unavailable(error) from error

    def list_keys(self, owner: str | None = None) -> list[ApiKey]:
        """Every key, or every key of `owner`'s account (a scan of a small table, for admins)."""
        model = self._model
        # A key without an owner is its own account's.
        of_owner = (model.owner == owner) | (model.owner.does_not_exist() & (model.key_id == owner))
        # Memberships and invitations share the table (adapters/dynamodb/memberships.py): no key_id.
        is_key = model.key_id.exists()
        try:
            keys = [self._to_domain(item) for item in model.scan(is_key & of_owner if owner is not None else is_key)]
        except PynamoDBException as error:
            raise unavailable(error) from error
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
            raise unavailable(error) from error
        return found

    def revoke_made_by(self, owner: str, maker: str) -> list[str]:
        """Revoke every key of `owner`'s account that acts for `maker` (a scan of a small table,
        as the listing; each key one conditional update): the ids of those revoked now."""
        model = self._model
        active = model.revoked.does_not_exist() | (model.revoked == False)  # noqa: E712  (a condition)
        revoked = []
        try:
            for item in model.scan((model.owner == owner) & (model.maker == maker) & active):
                item.update(actions=[model.revoked.set(True)], condition=model.key_hash.exists())
                revoked.append(item.key_id)
        except PynamoDBException as error:
            raise unavailable(error) from error
        return sorted(revoked)
