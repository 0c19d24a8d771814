"""A table on moto or on dynalite (which refuses what DynamoDB refuses and moto lets pass), for
adapter tests parametrized over both: the `dynalite` fixture (import it into the test module) and
the table made fresh from template.yaml."""

from collections.abc import Iterator

import boto3
import pytest

from tests.e2e.running_stack import DYNALITE, Dynalite
from tests.integration.conftest import use_moto_credentials
from tools.developers.devstack.resources import create_tables
from tools.developers.devstack.template import LocalTemplate


@pytest.fixture(scope="module")
def dynalite() -> Iterator[str]:
    if not DYNALITE.exists():
        pytest.skip("dynalite is not installed: run `npm ci`")
    started = Dynalite.start()
    yield started.endpoint
    started.stop()


def fresh_table(
    request: pytest.FixtureRequest, template: LocalTemplate, monkeypatch: pytest.MonkeyPatch, table: str
) -> None:
    """`table` made fresh from template.yaml in the DynamoDB of `request.param` (moto or dynalite)."""
    if request.param == "moto":
        request.getfixturevalue("aws")
        return
    endpoint = request.getfixturevalue("dynalite")
    use_moto_credentials(monkeypatch)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
    client = boto3.client("dynamodb", endpoint_url=endpoint)
    if table in client.list_tables()["TableNames"]:
        client.delete_table(TableName=table)
        # dynalite deletes a table after half a second
        client.get_waiter("table_not_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    create_tables(template, client)
