"""The naive redirect: boto3 clients created at import, a GetItem and a SendMessage in every
request before the response. Its own module, so its cold start counts only what it imports."""

import json
import os
from datetime import UTC, datetime
from typing import Any

import boto3

dynamodb = boto3.client("dynamodb")
sqs = boto3.client("sqs")
TABLE = os.environ["LINKS_TABLE"]
QUEUE = os.environ["CLICKS_QUEUE_URL"]  # the benchmark points it at a fresh queue per chunk


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    code = event["pathParameters"]["code"]
    item = dynamodb.get_item(TableName=TABLE, Key={"code": {"S": code}}).get("Item")
    if not item:
        return {"statusCode": 404, "body": "not found"}
    sqs.send_message(QueueUrl=QUEUE, MessageBody=json.dumps({"code": code, "at": datetime.now(UTC).isoformat()}))
    return {"statusCode": 302, "headers": {"Location": item["url"]["S"]}, "body": ""}
