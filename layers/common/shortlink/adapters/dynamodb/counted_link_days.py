"""The counters' clicks per link and UTC day, as the click-stats table holds them: each link's day
item of one region (`c#YYYY-MM-DD#region`): each region's stack has its own lake, and counts its
own clicks (a global table holds the others' too). A Scan with a filter: the daily check and the
operator's command read the table's day items once, never on a request's path."""

from collections import Counter
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.errors import StorageUnavailable
from shortlink.links.keys import is_possible_key


def counted_link_days(dynamodb: Any, table: str, first: str, last: str) -> Counter[tuple[str, str]]:
    """(link key, day) → clicks the counters of the client's region hold for the days from
    `first` to `last` (ISO dates)."""
    counted: Counter[tuple[str, str]] = Counter()
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="begins_with(#bucket, :counters) AND #bucket BETWEEN :first AND :last",
        ProjectionExpression="#code, #bucket, #clicks",
        ExpressionAttributeNames={"#code": "code", "#bucket": "bucket", "#clicks": "clicks"},
        ExpressionAttributeValues={
            ":counters": {"S": "c#"},
            ":first": {"S": f"c#{first}"},
            ":last": {"S": f"c#{last}#~"},  # every region's item of the last day
        },
    )
    for page in pages:
        for item in page.get("Items", []):
            code, (_, day, region) = item["code"]["S"], item["bucket"]["S"].split("#", 2)
            if region != dynamodb.meta.region_name:
                continue
            if is_possible_key(code) and "clicks" in item:  # links only: not the stack's orphan visits
                counted[(code, day)] += int(item["clicks"]["N"])
    return counted


class DynamoCountedLinkDays:
    """The counters' side of the click lake's reconciliation (shortlink.clicks.lake_reconciliation)."""

    def __init__(self, table: str, client: Any = None) -> None:
        self._table = table
        self._client = client

    def clicks_per_link_day(self, first: str, last: str) -> Counter[tuple[str, str]]:
        """(link key, day) → counted clicks, or StorageUnavailable when the table cannot be read."""
        if self._client is None:
            from shortlink.adapters.botocore_clients import botocore_client

            self._client = botocore_client("dynamodb")
        try:
            return counted_link_days(self._client, self._table, first, last)
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"the click-stats table could not be read: {error}") from error
