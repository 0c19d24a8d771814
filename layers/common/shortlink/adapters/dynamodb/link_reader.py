"""The redirect's reads of the links table through a plain botocore client: its one GetItem per
link, and robots.txt's query of the crawlable codes. The click budget (click_budget.py) shares the
table access.

Everything else goes through the pynamodb models in adapters/dynamodb/link_store.py. The redirect
alone skips pynamodb because its import (about 15 ms here) is paid on every cold start a visitor
waits for; both read and write items through the one codec of adapters/dynamodb/link_items.py,
from whose table pynamodb's LinkItem is declared.
"""

from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.adapters.dynamodb.link_items import CRAWLABLE, CRAWLABLE_INDEX, link_from_item
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link


class RedirectTable:
    def __init__(self, table_name: str, region: str | None = None) -> None:
        self._table_name = table_name
        self._region = region  # None: the function's own
        self._client: Any = None

    def _dynamodb(self) -> Any:
        # On first use, not at init: a process that never reads should not pay for a client.
        if self._client is None:
            self._client = botocore_client("dynamodb", region_name=self._region)
        return self._client


class DynamoLinkReader(RedirectTable):
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


class MissesAskHome:
    """A LinkSource away from home: this region's replica, and for a code it lacks the home
    region's table, where slugs, imports and max_clicks links are written, so that a link is
    followable everywhere the moment its create call returns, not a replication lag later (and
    then a negative cache's TTL). A home region out of reach leaves the miss a miss, and is not
    asked again for `pause_seconds`: an outage costs unknown codes no round trip that fails."""

    def __init__(
        self, here: DynamoLinkReader, home: DynamoLinkReader, clock: Callable[[], float], pause_seconds: float
    ) -> None:
        self._here, self._home = here, home
        self._clock, self._pause = clock, pause_seconds
        self._home_asked_again_at = 0.0

    def get(self, code: str) -> Link | None:
        link = self._here.get(code)
        if link is not None or self._clock() < self._home_asked_again_at:
            return link
        try:
            return self._home.get(code)
        except StorageUnavailable:
            self._home_asked_again_at = self._clock() + self._pause
            return None


class DynamoCrawlableCodes(RedirectTable):
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
