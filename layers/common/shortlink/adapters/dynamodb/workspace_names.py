"""Workspaces' names (pynamodb), as items of the API keys table under `workspace#<id>`, beside the
memberships of the same workspace: written in the home region, read in the function's own (a
name a replica has not seen yet shows the workspace's id a moment longer)."""

from datetime import datetime

from pynamodb.attributes import UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import PynamoDBException
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, unavailable

WORKSPACE = "workspace"
BATCH_GET_LIMIT = 100  # keys per BatchGetItem


class WorkspaceItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")  # the table's key
    kind = UnicodeAttribute(attr_name="item_kind")
    name = UnicodeAttribute(attr_name="workspace_name")
    renamed_at = UTCDateTimeAttribute(attr_name="renamed_at")


def workspace_key(workspace_id: str) -> str:
    return f"workspace#{workspace_id}"


class DynamoWorkspaceNames:
    def __init__(self, table_name: str, home_region: str | None = None, region: str | None = None) -> None:
        self._home = bound_model(WorkspaceItem, table_name, home_region)
        self._local = bound_model(WorkspaceItem, table_name, region)

    def names_of(self, workspace_ids: list[str]) -> dict[str, str]:
        keys = sorted({workspace_key(each) for each in workspace_ids})
        names: dict[str, str] = {}
        try:
            for start in range(0, len(keys), BATCH_GET_LIMIT):
                for item in self._local.batch_get(keys[start : start + BATCH_GET_LIMIT]):
                    names[item.item_key.removeprefix("workspace#")] = item.name
        except PynamoDBException as error:
            raise unavailable(error) from error
        return names

    def rename(self, workspace_id: str, name: str, now: datetime) -> None:
        item = self._home(item_key=workspace_key(workspace_id), kind=WORKSPACE, name=name, renamed_at=now)
        try:
            item.save()
        except PynamoDBException as error:
            raise unavailable(error) from error
