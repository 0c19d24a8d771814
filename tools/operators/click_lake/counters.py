"""The counters' clicks per link and UTC day, as the click-stats table holds them: each link's day
item of one region (`c#YYYY-MM-DD#region`): each region's stack has its own lake, and counts its
own clicks (a global table holds the others' too). A Scan with a filter: an operator's check reads
the table's day items once, never on a request's path."""

from collections import Counter
from typing import Any

from shortlink.links.keys import is_possible_key
from tools.operators.click_lake.store import days_between


def counted_link_days(dynamodb: Any, table: str, first: str, last: str) -> Counter[tuple[str, str]]:
    """(link key, day) → clicks the counters of the client's region hold for those days."""
    days = days_between(first, last)
    counted: Counter[tuple[str, str]] = Counter()
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="begins_with(#bucket, :counters) AND #bucket BETWEEN :first AND :last",
        ProjectionExpression="#code, #bucket, #clicks",
        ExpressionAttributeNames={"#code": "code", "#bucket": "bucket", "#clicks": "clicks"},
        ExpressionAttributeValues={
            ":counters": {"S": "c#"},
            ":first": {"S": f"c#{days[0]}"},
            ":last": {"S": f"c#{days[-1]}#~"},  # every region's item of the last day
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
