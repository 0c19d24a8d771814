"""The console's list over a workspace's newest links, through a plain botocore client: the
outlines of up to N links in one Query of the ByOwner index (only the attributes the search, the
filters and the orders read), then the full links of the page shown in one BatchGetItem. Not
pynamodb: building its model of each of 1,000 items costs more than the read itself (the profile
of the list in `python -m tools.developers.bench console`)."""

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.dynamodb.click_stats_table import Expression
from shortlink.adapters.dynamodb.link_items import ATTRIBUTES, Item, link_from_item
from shortlink.adapters.dynamodb.link_reader import RedirectTable
from shortlink.domains.model import split_key
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link
from shortlink.links.outlines import LinkOutline

OWNER_INDEX = "ByOwner"
BATCH_GET_KEYS = 100  # DynamoDB's limit per BatchGetItem
MAX_BATCH_ROUNDS = 5  # rounds of unprocessed keys before the read is given up
OUTLINE_ATTRIBUTES = ("code", "title", "tags", "deleted_at")


class DynamoLinkLists(RedirectTable):
    """The links table's lazy botocore client, as the redirect's reads use it."""

    def outlines_for_owner(self, owner: str, limit: int) -> tuple[list[LinkOutline], bool]:
        """The owner's newest `limit` links' outlines, newest first, and whether it has more."""
        expression = Expression()
        campaign = f"{expression.name('utm')}.{expression.name('campaign')}"
        owner_name, owner_value = expression.name("owner"), expression.value("owner", {"S": owner})
        query: dict[str, Any] = {
            "TableName": self._table_name,
            "IndexName": OWNER_INDEX,
            "KeyConditionExpression": f"{owner_name} = {owner_value}",
            "ProjectionExpression": ", ".join([*(expression.name(name) for name in OUTLINE_ATTRIBUTES), campaign]),
            "ExpressionAttributeNames": expression.names,
            "ExpressionAttributeValues": expression.values,
            "ScanIndexForward": False,
        }
        items: list[Item] = []
        try:
            while len(items) <= limit:
                page = self._dynamodb().query(**query, Limit=limit + 1 - len(items))
                items.extend(page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    break
                query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"links not read: {error}") from error
        return [_outline(item) for item in items[:limit]], len(items) > limit

    def links_of(self, keys: Sequence[str]) -> list[Link]:
        """The links stored under `keys`, in that order (one gone meanwhile is left out)."""
        found: dict[str, Link] = {}
        try:
            for start in range(0, len(keys), BATCH_GET_KEYS):
                chunk = [{"code": {"S": key}} for key in dict.fromkeys(keys[start : start + BATCH_GET_KEYS])]
                pending: dict[str, Any] = {self._table_name: {"Keys": chunk}}
                for _ in range(MAX_BATCH_ROUNDS):
                    if not pending:
                        break
                    page = self._dynamodb().batch_get_item(RequestItems=pending)
                    for item in page.get("Responses", {}).get(self._table_name, []):
                        found[item["code"]["S"]] = link_from_item(item)
                    pending = page.get("UnprocessedKeys") or {}
                if pending:
                    raise StorageUnavailable("links not read: DynamoDB kept returning unprocessed keys")
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"links not read: {error}") from error
        return [found[key] for key in keys if key in found]


def _outline(item: Item) -> LinkOutline:
    key = item["code"]["S"]
    domain, code = split_key(key)
    campaign = item.get("utm", {}).get("M", {}).get("campaign", {}).get("S")
    return LinkOutline(
        key=key,
        code=code,
        domain=domain,
        title=ATTRIBUTES["title"].decode(item["title"]) if "title" in item else None,
        tags=ATTRIBUTES["tags"].decode(item["tags"]) if "tags" in item else (),
        campaign=campaign,
        deleted="deleted_at" in item,
    )
