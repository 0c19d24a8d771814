"""A table of the template made for one test on the store the `store` fixture names: in a fresh
moto account in this process, or on dynalite (which refuses what DynamoDB refuses)."""

import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from tools.developers.devstack.resources import tables_of
from tools.developers.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[2]


def template_table_on(store: dict[str, str], monkeypatch: pytest.MonkeyPatch, logical_id: str) -> Iterator[str]:
    """The name of the template's table `logical_id`, made under a name of this test's own on
    `store` ({} for moto), for as long as the generator is not closed."""
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    if not store:
        with mock_aws():
            yield _template_table(logical_id)
        return
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", store["AWS_ENDPOINT_URL_DYNAMODB"])
    yield _template_table(logical_id)


def _template_table(logical_id: str) -> str:
    properties = tables_of(LocalTemplate.load(ROOT / "template.yaml"))[logical_id]
    name = f"{logical_id}-{uuid.uuid4().hex[:8]}"
    boto3.client("dynamodb").create_table(
        TableName=name, **{key: properties[key] for key in ("AttributeDefinitions", "KeySchema", "BillingMode")}
    )
    return name
