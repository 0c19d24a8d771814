"""Creates the template's DynamoDB tables and SQS queues on a local endpoint, from their
CloudFormation properties: the template stays the only definition of them."""

import json
from typing import Any

from botocore.exceptions import ClientError

from tools.developers.devstack.template import QUEUE_TYPE, TABLE_TYPES, LocalTemplate, logical_id_of

# CloudFormation table properties that CreateTable takes under the same name.
TABLE_PROPERTIES = ("AttributeDefinitions", "KeySchema", "BillingMode", "ProvisionedThroughput")
# CloudFormation queue properties that are not queue attributes.
QUEUE_NON_ATTRIBUTES = {"QueueName", "Tags"}
# What a store without Time to Live (dynalite) answers UpdateTimeToLive with.
NO_TTL_ERRORS = {"UnknownOperationException"}


def _index(index: dict[str, Any], on_demand: bool) -> dict[str, Any]:
    return {k: v for k, v in index.items() if not (on_demand and k == "ProvisionedThroughput")}


def tables_of(template: LocalTemplate) -> dict[str, dict[str, Any]]:
    """Logical id → Properties of every table, regional or global."""
    return {
        name: properties for table_type in TABLE_TYPES for name, properties in template.resources(table_type).items()
    }


def create_tables(template: LocalTemplate, dynamodb: Any, with_streams: frozenset[str] = frozenset()) -> list[str]:
    """Create the tables that do not exist yet (`with_streams`: also with a stream of new and old
    images where the template has none, for the replicator); the names of those left without
    their Time to Live because the store has none (their expired items are then never deleted)."""
    existing = set(dynamodb.list_tables()["TableNames"])
    without_ttl = []
    for name, properties in tables_of(template).items():
        if name in existing:
            continue
        request = {key: properties[key] for key in TABLE_PROPERTIES if key in properties}
        on_demand = properties.get("BillingMode") == "PAY_PER_REQUEST"
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if kind in properties:
                request[kind] = [_index(index, on_demand) for index in properties[kind]]
        stream = properties.get("StreamSpecification")
        if not stream and name in with_streams:
            stream = {"StreamViewType": "NEW_AND_OLD_IMAGES"}
        if stream:
            request["StreamSpecification"] = {"StreamEnabled": True, **stream}
        dynamodb.create_table(TableName=name, **request)
        ttl = properties.get("TimeToLiveSpecification")
        if ttl:
            try:
                dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") not in NO_TTL_ERRORS:
                    raise
                without_ttl.append(name)
    return without_ttl


def stream_arns(template: LocalTemplate, dynamodb: Any) -> dict[str, str]:
    """Logical id → stream ARN of each table that has its stream here (none in dynalite)."""
    arns = {}
    for name, properties in tables_of(template).items():
        if "StreamSpecification" in properties:
            arn = dynamodb.describe_table(TableName=name)["Table"].get("LatestStreamArn")
            if arn:
                arns[name] = arn
    return arns


def _queue_attributes(properties: dict[str, Any], queue_arns: dict[str, str]) -> dict[str, str]:
    attributes = {}
    for key, value in properties.items():
        if key in QUEUE_NON_ATTRIBUTES:
            continue
        if key == "RedrivePolicy":
            target = queue_arns[logical_id_of(value["deadLetterTargetArn"])]
            value = json.dumps({**value, "deadLetterTargetArn": target})
        attributes[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return attributes


def create_queues(template: LocalTemplate, sqs: Any) -> dict[str, str]:
    """Create every queue (dead-letter targets first); logical id → queue URL."""
    pending = dict(template.resources(QUEUE_TYPE))
    urls: dict[str, str] = {}
    arns: dict[str, str] = {}
    while pending:
        ready = [
            name
            for name, properties in pending.items()
            if "RedrivePolicy" not in properties
            or logical_id_of(properties["RedrivePolicy"]["deadLetterTargetArn"]) in arns
        ]
        if not ready:
            raise RuntimeError(f"queues with unresolvable dead-letter targets: {sorted(pending)}")
        for name in ready:
            url = sqs.create_queue(QueueName=name, Attributes=_queue_attributes(pending.pop(name), arns))["QueueUrl"]
            urls[name] = url
            arns[name] = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return urls
