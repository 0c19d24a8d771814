"""The redirect's DynamoDB calls through a plain botocore client: its one read (GetItem), and for
links with max_clicks, the one conditional update that counts a follow.

Everything else goes through the pynamodb models in adapters/dynamodb/links_table.py, which remain the
schema of record. The redirect alone skips pynamodb because its import (about 15 ms here) is
paid on every cold start a visitor waits for; tests/integration/test_dynamodb_redirect.py writes
links through the pynamodb repository and reads them back through this reader, so the two
cannot drift apart.
"""

from datetime import datetime
from typing import TYPE_CHECKING, Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from botocore.session import get_session

from shortlink.domains.model import split_key
from shortlink.errors import StorageUnavailable
from shortlink.links.model import DEFAULT_REDIRECT_TYPE, Link

if TYPE_CHECKING:
    from shortlink.links.destinations import Utm
    from shortlink.links.previews import LinkPreview
    from shortlink.rules.model import LinkRules

# pynamodb's UTCDateTimeAttribute format, which the repository writes.
PYNAMODB_DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%f%z"
# The links table's sparse index of crawlable links (LinkItem.crawlable_key holds CRAWLABLE).
CRAWLABLE_INDEX = "Crawlable"
CRAWLABLE = "crawlable"
# The same limits as the pynamodb models: fail fast rather than keep a visitor waiting.
CLIENT_CONFIG = Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 3, "mode": "standard"})


class _RedirectTable:
    def __init__(self, table_name: str) -> None:
        self._table_name = table_name
        self._client: Any = None

    def _dynamodb(self) -> Any:
        # On first use, not at init: a process that never reads should not pay for a client.
        if self._client is None:
            self._client = get_session().create_client("dynamodb", config=CLIENT_CONFIG)
        return self._client


class DynamoClickBudget(_RedirectTable):
    """ClickBudget: `clicks_used` goes up by one only while it is below `max_clicks`, in one
    conditional UpdateItem, so concurrent follows can never exceed the budget."""

    def take(self, code: str) -> bool:
        try:
            self._dynamodb().update_item(
                TableName=self._table_name,
                Key={"code": {"S": code}},
                UpdateExpression="SET #used = if_not_exists(#used, :zero) + :one",
                ConditionExpression="attribute_exists(#max) AND (attribute_not_exists(#used) OR #used < #max)",
                ExpressionAttributeNames={"#used": "clicks_used", "#max": "max_clicks"},
                ExpressionAttributeValues={":zero": {"N": "0"}, ":one": {"N": "1"}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise StorageUnavailable(f"DynamoDB request failed: {error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"DynamoDB request failed: {error}") from error
        return True


class DynamoLinkReader(_RedirectTable):
    """A LinkSource over the links table."""

    def get(self, code: str) -> Link | None:
        try:
            # Strongly consistent: a link is followable the moment its create call returns.
            response = self._dynamodb().get_item(
                TableName=self._table_name, Key={"code": {"S": code}}, ConsistentRead=True
            )
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"DynamoDB request failed: {error}") from error
        item = response.get("Item")
        if item is None:
            return None
        return link_from_item(item)


class DynamoCrawlableCodes(_RedirectTable):
    """The codes of crawlable links, from the table's sparse Crawlable index (keys only)."""

    def codes(self, limit: int) -> list[str]:
        """Up to `limit` codes, in code order; the Query reads about 1 KB per 100 codes."""
        found: list[str] = []
        request: dict[str, Any] = {
            "TableName": self._table_name,
            "IndexName": CRAWLABLE_INDEX,
            "KeyConditionExpression": "#key = :crawlable",
            "ExpressionAttributeNames": {"#key": "crawlable_key"},
            "ExpressionAttributeValues": {":crawlable": {"S": CRAWLABLE}},
        }
        try:
            while len(found) < limit:
                response = self._dynamodb().query(**request, Limit=limit - len(found))
                found += [item["code"]["S"] for item in response.get("Items", [])]
                if "LastEvaluatedKey" not in response:
                    break
                request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"DynamoDB request failed: {error}") from error
        return found


def _moment(item: dict[str, Any], name: str) -> datetime | None:
    value = item.get(name)
    return datetime.strptime(value["S"], PYNAMODB_DATETIME_FORMAT) if value else None


def link_from_item(item: dict[str, Any]) -> Link:
    """A links-table item as pynamodb's LinkItem writes it (absent attributes are unset)."""
    created_at = _moment(item, "created_at")
    if created_at is None:  # written with every link: an item without it is not one of ours
        raise StorageUnavailable("a links item has no created_at")  # never its code: it may be private
    domain, code = split_key(item["code"]["S"])
    return Link(
        code=code,
        domain=domain,
        url=item["url"]["S"],
        owner=item["owner"]["S"],
        created_at=created_at,
        valid_from=_moment(item, "valid_from"),
        expires_at=_moment(item, "expires_at"),
        redirect_type=int(item["redirect_type"]["N"]) if "redirect_type" in item else DEFAULT_REDIRECT_TYPE,
        tags=tuple(tag["S"] for tag in item["tags"]["L"]) if "tags" in item else (),
        title=item["title"]["S"] if "title" in item else None,
        custom_slug=item.get("custom_slug", {}).get("BOOL", False),
        private=item.get("private", {}).get("BOOL", False),
        deleted_at=_moment(item, "deleted_at"),
        max_clicks=int(item["max_clicks"]["N"]) if "max_clicks" in item else None,
        password_hash=item["password_hash"]["S"] if "password_hash" in item else None,
        rules=_rules(item),
        forward_query=item.get("forward_query", {}).get("BOOL", True),
        expired_url=item["expired_url"]["S"] if "expired_url" in item else None,
        crawlable=item.get("crawlable", {}).get("BOOL", False),
        preview=_preview(item),
        utm=_utm(item),
    )


def _strings(item: dict[str, Any], name: str) -> dict[str, str]:
    return {key: value["S"] for key, value in item[name]["M"].items() if "S" in value}


def _preview(item: dict[str, Any]) -> "LinkPreview | None":
    if "preview" not in item:
        return None
    from shortlink.links.previews import LinkPreview

    return LinkPreview(**_strings(item, "preview"))


def _utm(item: dict[str, Any]) -> "Utm | None":
    if "utm" not in item:
        return None
    from shortlink.links.destinations import Utm

    return Utm(**_strings(item, "utm"))


def _rules(item: dict[str, Any]) -> "LinkRules | None":
    if "rules" not in item:
        return None
    # Only links with rules load the rules engine (and ipaddress): plain links' cold start is spared.
    from shortlink.rules.model import stored_rules

    return stored_rules(item["rules"]["S"])
