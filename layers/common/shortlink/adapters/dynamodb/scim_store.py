"""SCIM tokens, provisioned users and groups (pynamodb), as items of the API keys table beside the
workspace's members, under their own key prefixes: `scim-token#<token hash>`,
`scim-user#<workspace>#<id>`, `scim-group#<workspace>#<id>`, and `scim-name#<workspace>#<userName>`,
which a user holds so that of two users of one address only one is stored (a conditional put,
never a look then a write). Listings scan the small table, as the members' listing does."""

from typing import TypeVar

from pynamodb.attributes import (
    BooleanAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.errors import StorageUnavailable
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser
from shortlink.scim.tokens import ScimToken

TOKEN, USER, GROUP, NAME = "scim_token", "scim_user", "scim_group", "scim_name"
CONFLICTS = ("ConditionalCheckFailedException", "TransactionCanceledException")


class ScimTokenItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    kind = UnicodeAttribute(attr_name="item_kind")
    token_id = UnicodeAttribute(attr_name="token_id")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")
    created_by = UnicodeAttribute(attr_name="created_by")
    created_at = UTCDateTimeAttribute(attr_name="created_at")
    revoked = BooleanAttribute(default=False, attr_name="revoked")


class ScimResourceItem(Model):
    """What a user's and a group's items share."""

    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    kind = UnicodeAttribute(attr_name="item_kind")
    scim_id = UnicodeAttribute(attr_name="scim_id")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")
    created_at = UTCDateTimeAttribute(attr_name="created_at")
    modified_at = UTCDateTimeAttribute(attr_name="modified_at")
    external_id = UnicodeAttribute(null=True, attr_name="external_id")


class ScimUserItem(ScimResourceItem):
    user_name = UnicodeAttribute(attr_name="user_name")
    active = BooleanAttribute(attr_name="active")
    display_name = UnicodeAttribute(null=True, attr_name="display_name")
    given_name = UnicodeAttribute(null=True, attr_name="given_name")
    family_name = UnicodeAttribute(null=True, attr_name="family_name")
    removed_subjects = UnicodeSetAttribute(null=True, attr_name="removed_subjects")


class ScimGroupItem(ScimResourceItem):
    display_name = UnicodeAttribute(attr_name="display_name")
    members = UnicodeSetAttribute(null=True, attr_name="members")


class ScimNameItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    kind = UnicodeAttribute(attr_name="item_kind")
    scim_id = UnicodeAttribute(attr_name="scim_id")


def _user_key(workspace_id: str, scim_id: str) -> str:
    return f"scim-user#{workspace_id}#{scim_id}"


def _name_key(workspace_id: str, user_name: str) -> str:
    return f"scim-name#{workspace_id}#{user_name}"


def _token(item: ScimTokenItem) -> ScimToken:
    return ScimToken(item.token_id, item.workspace_id, item.created_by, item.created_at, bool(item.revoked))


def _user(item: ScimUserItem) -> ProvisionedUser:
    return ProvisionedUser(
        scim_id=item.scim_id,
        workspace_id=item.workspace_id,
        user_name=item.user_name,
        created_at=item.created_at,
        modified_at=item.modified_at,
        active=bool(item.active),
        external_id=item.external_id or "",
        display_name=item.display_name or "",
        given_name=item.given_name or "",
        family_name=item.family_name or "",
        removed_subjects=tuple(sorted(item.removed_subjects or ())),
    )


def _group(item: ScimGroupItem) -> ProvisionedGroup:
    members = frozenset(item.members or ())
    return ProvisionedGroup(
        item.scim_id,
        item.workspace_id,
        item.display_name,
        item.created_at,
        item.modified_at,
        item.external_id or "",
        members,
    )


ResourceItemT = TypeVar("ResourceItemT", bound=ScimResourceItem)


def _of_workspace(model: type[ResourceItemT], kind: str, workspace_id: str) -> list[ResourceItemT]:
    """The workspace's items of `kind`, oldest first (a scan of the small table)."""
    try:
        found = list(model.scan((model.kind == kind) & (model.workspace_id == workspace_id)))
    except PynamoDBException as error:
        raise unavailable(error) from error
    return sorted(found, key=lambda each: (each.created_at, each.scim_id))


class DynamoScimTokens:
    """SCIM tokens, in the home region's table (a revocation holds everywhere at once)."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(ScimTokenItem, table_name, home_region)

    def add(self, token_hash: str, token: ScimToken) -> None:
        model = self._model
        item = model(
            item_key=f"scim-token#{token_hash}", kind=TOKEN, token_id=token.token_id, workspace_id=token.workspace_id,
            created_by=token.created_by, created_at=token.created_at, revoked=False,
        )  # fmt: skip
        try:
            item.save(condition=model.item_key.does_not_exist())
        except PynamoDBException as error:
            raise unavailable(error) from error

    def find_by_hash(self, token_hash: str) -> ScimToken | None:
        try:
            return _token(self._model.get(f"scim-token#{token_hash}", consistent_read=True))
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def _items(self, workspace_id: str) -> list[ScimTokenItem]:
        model = self._model
        try:
            return list(model.scan((model.kind == TOKEN) & (model.workspace_id == workspace_id)))
        except PynamoDBException as error:
            raise unavailable(error) from error

    def of_workspace(self, workspace_id: str) -> list[ScimToken]:
        return sorted((_token(item) for item in self._items(workspace_id)), key=lambda each: each.created_at)

    def revoke(self, workspace_id: str, token_id: str) -> bool:
        model = self._model
        item = next((each for each in self._items(workspace_id) if each.token_id == token_id), None)
        if item is None:
            return False
        try:
            item.update(actions=[model.revoked.set(True)], condition=model.workspace_id == workspace_id)
        except PynamoDBException as error:
            raise unavailable(error) from error
        return True


class DynamoProvisionedUsers:
    """Provisioned users, in the home region's table; a user and the claim of its userName are
    written in one transaction."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(ScimUserItem, table_name, home_region)
        self._names = bound_model(ScimNameItem, table_name, home_region)
        self._connection = Connection(region=home_region)

    def _item(self, user: ProvisionedUser) -> ScimUserItem:
        return self._model(
            item_key=_user_key(user.workspace_id, user.scim_id), kind=USER, scim_id=user.scim_id,
            workspace_id=user.workspace_id, user_name=user.user_name, created_at=user.created_at,
            modified_at=user.modified_at, active=user.active, external_id=user.external_id or None,
            display_name=user.display_name or None, given_name=user.given_name or None,
            family_name=user.family_name or None, removed_subjects=set(user.removed_subjects) or None,
        )  # fmt: skip

    def _claim(self, user: ProvisionedUser) -> ScimNameItem:
        return self._names(item_key=_name_key(user.workspace_id, user.user_name), kind=NAME, scim_id=user.scim_id)

    def _write(self, steps: list[tuple[str, Model, object]]) -> bool:
        try:
            with TransactWrite(connection=self._connection) as transaction:
                for step, item, condition in steps:
                    if step == "save":
                        transaction.save(item, condition=condition)  # type: ignore[arg-type]
                    else:
                        transaction.delete(item, condition=condition)  # type: ignore[arg-type]
        except PynamoDBException as error:
            if error_code(error) in CONFLICTS:
                return False
            raise unavailable(error) from error
        return True

    def add(self, user: ProvisionedUser) -> bool:
        claim = self._claim(user)
        return self._write([("save", claim, self._names.item_key.does_not_exist()), ("save", self._item(user), None)])

    def replace(self, before: ProvisionedUser, after: ProvisionedUser) -> bool:
        if before.user_name == after.user_name:
            return self._write([("save", self._item(after), None)])
        return self._write([
            ("save", self._claim(after), self._names.item_key.does_not_exist()),
            ("delete", self._claim(before), None),
            ("save", self._item(after), None),
        ])  # fmt: skip

    def get(self, workspace_id: str, scim_id: str) -> ProvisionedUser | None:
        try:
            return _user(self._model.get(_user_key(workspace_id, scim_id), consistent_read=True))
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def of_workspace(self, workspace_id: str) -> list[ProvisionedUser]:
        return [_user(item) for item in _of_workspace(self._model, USER, workspace_id)]

    def delete(self, user: ProvisionedUser) -> None:
        if not self._write([("delete", self._claim(user), None), ("delete", self._item(user), None)]):
            raise StorageUnavailable("the SCIM user changed while it was deleted")


class DynamoProvisionedGroups:
    """Provisioned groups, in the home region's table."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(ScimGroupItem, table_name, home_region)

    def put(self, group: ProvisionedGroup) -> None:
        item = self._model(
            item_key=f"scim-group#{group.workspace_id}#{group.scim_id}", kind=GROUP, scim_id=group.scim_id,
            workspace_id=group.workspace_id, display_name=group.display_name, created_at=group.created_at,
            modified_at=group.modified_at, external_id=group.external_id or None, members=set(group.members) or None,
        )  # fmt: skip
        try:
            item.save()
        except PynamoDBException as error:
            raise unavailable(error) from error

    def get(self, workspace_id: str, scim_id: str) -> ProvisionedGroup | None:
        try:
            return _group(self._model.get(f"scim-group#{workspace_id}#{scim_id}", consistent_read=True))
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def of_workspace(self, workspace_id: str) -> list[ProvisionedGroup]:
        return [_group(item) for item in _of_workspace(self._model, GROUP, workspace_id)]

    def delete(self, group: ProvisionedGroup) -> None:
        try:
            self._model(item_key=f"scim-group#{group.workspace_id}#{group.scim_id}").delete()
        except PynamoDBException as error:
            raise unavailable(error) from error
