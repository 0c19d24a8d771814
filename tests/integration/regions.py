"""A deployment in three regions in one moto account: moto keeps each region's tables apart, as
AWS does; `replicate` does what DynamoDB global tables do asynchronously (a region's items put
into the other replicas, each such put in their streams too). The functions' environment is one
region's at a time (`enter`), as each region's functions have their own."""

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from shortlink import wiring as services
from shortlink.access.api_keys import generate_api_key, hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from tests.api_client import Answer, ApiClient, through_handlers
from tests.integration.conftest import use_moto_credentials
from tools.developers.devstack.local_env import function_environment
from tools.developers.devstack.resources import create_queues, create_tables
from tools.developers.devstack.template import TABLE_TYPES, LocalTemplate

REGIONS = ("us-east-1", "eu-central-1", "ap-southeast-1")
HOME = REGIONS[0]
AWAY = REGIONS[1:]


class Deployment:
    def __init__(self, template: LocalTemplate, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch
        self._template = template
        self.tables = {name: name for kind in TABLE_TYPES for name in template.resources(kind)}
        self.queue_urls = {}
        for region in REGIONS:
            create_tables(template, self.dynamodb(region))
            self.queue_urls[region] = create_queues(template, boto3.client("sqs", region_name=region))
        monkeypatch.setenv("PUBLIC_BASE_URL", "https://sho.rt")

    @staticmethod
    def dynamodb(region: str) -> Any:
        return boto3.client("dynamodb", region_name=region)

    def enter(self, region: str, **overrides: str) -> None:
        """The functions' environment of `region` from now on (adapters made afresh), with
        `overrides` of the template's values."""
        for name, value in {**function_environment(self._template, self.queue_urls[region]), **overrides}.items():
            self._monkeypatch.setenv(name, value)
        # After the template's values, which leave both empty (one region).
        self._monkeypatch.setenv("SHORTLINK_REGIONS", ",".join(REGIONS))
        self._monkeypatch.setenv("SHORTLINK_HOME_REGION", HOME)
        self._monkeypatch.setenv("AWS_REGION", region)
        self._monkeypatch.setenv("AWS_DEFAULT_REGION", region)
        services.reset()

    def new_api_key(self, name: str = "tester") -> str:
        """A key with every scope, made in the home region."""
        key = generate_api_key()
        key_hash = hash_api_key(key)
        DynamoApiKeyStore(self.tables["ApiKeysTable"], HOME).add(key_hash, key_id_for(key_hash), name)
        return key

    def items(self, region: str, table: str) -> list[dict[str, Any]]:
        pages = self.dynamodb(region).get_paginator("scan").paginate(TableName=table)
        return [item for page in pages for item in page["Items"]]

    def item(self, region: str, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.dynamodb(region).get_item(TableName=table, Key=key).get("Item")
        return found

    def replicate(self, source: str, tables: tuple[str, ...] | None = None) -> int:
        """Put every item of `source`'s tables into the other regions' (the last writer wins);
        the number of items put."""
        put = 0
        for table in tables or tuple(self.tables):
            items = self.items(source, table)
            for region in REGIONS:
                if region == source:
                    continue
                client = self.dynamodb(region)
                for item in items:
                    client.put_item(TableName=table, Item=item)
                    put += 1
        return put


def deployment(template: LocalTemplate, monkeypatch: pytest.MonkeyPatch) -> Iterator[Deployment]:
    use_moto_credentials(monkeypatch)
    with mock_aws():
        yield Deployment(template, monkeypatch)
        services.reset()


def follow(handlers: Any, code: str) -> Answer:
    """A visitor's GET of `code` in the region entered last."""
    return ApiClient(through_handlers(handlers), new_key=str).follow(code)
