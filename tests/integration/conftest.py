"""Integration tests: real boto3/pynamodb calls against moto, tables and queues from template.yaml."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from shortlink import wiring as services
from shortlink.access.api_keys import generate_api_key, hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests import botocore_models
from tests.api_client import ApiClient, through_handlers
from tools.developers.devstack.lambda_runtime import Handler, LambdaContext, load_handler
from tools.developers.devstack.local_env import function_environment, own_environment
from tools.developers.devstack.resources import create_queues, create_tables
from tools.developers.devstack.template import LocalTemplate
from tools.developers.moto_transactions import install as transactions_per_item

ROOT = Path(__file__).resolve().parents[2]
transactions_per_item()  # moto copies whole tables per transaction item otherwise
botocore_models.install()  # each fresh wiring's clients parsed botocore's models anew
botocore_models.share_sessions()  # and made a botocore session for each client


@pytest.fixture(scope="session")
def template() -> LocalTemplate:
    return LocalTemplate.load(ROOT / "template.yaml")


@dataclass
class Stack:
    queue_urls: dict[str, str]
    sqs: Any
    dynamodb: Any

    def new_api_key(self, name: str = "tester") -> str:
        key = generate_api_key()
        key_hash = hash_api_key(key)
        DynamoApiKeyStore(resources().api_keys_table.value).add(key_hash, key_id_for(key_hash), name)
        return key

    def item_count(self, table: str) -> int:
        pages = self.dynamodb.get_paginator("scan").paginate(TableName=table, Select="COUNT")
        return sum(int(page["Count"]) for page in pages)


def use_moto_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials, and no endpoint or profile of the developer's leaking in."""
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


def new_account(template: LocalTemplate) -> Stack:
    """The template's tables and queues in the moto account in effect."""
    dynamodb, sqs = boto3.client("dynamodb"), boto3.client("sqs")
    create_tables(template, dynamodb)
    return Stack(queue_urls=create_queues(template, sqs), sqs=sqs, dynamodb=dynamodb)


def in_function_environment(stack: Stack, template: LocalTemplate, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """The functions' environment for `stack`, with adapters and settings made afresh."""
    for name, value in function_environment(template, stack.queue_urls).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PUBLIC_BASE_URL", "https://sho.rt")
    services.reset()
    yield stack
    services.reset()


# A module whose tests only add to an account (and count what they add) may share one.
ONE_ACCOUNT = "one_account_per_module"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{ONE_ACCOUNT}: the module's tests share a moto account, emptied for each")


def emptied(stack: Stack, template: LocalTemplate) -> Stack:
    """`stack` with every item deleted and its queues made anew if any holds a message (moto, as
    SQS, allows one purge a minute): to a test, a fresh account."""
    for table in stack.dynamodb.list_tables()["TableNames"]:
        schema = stack.dynamodb.describe_table(TableName=table)["Table"]["KeySchema"]
        names = {f"#k{index}": key["AttributeName"] for index, key in enumerate(schema)}
        pages = stack.dynamodb.get_paginator("scan").paginate(
            TableName=table, ProjectionExpression=", ".join(names), ExpressionAttributeNames=names
        )
        for item in (item for page in pages for item in page["Items"]):
            stack.dynamodb.delete_item(TableName=table, Key=item)
    counts = ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")
    for url in stack.queue_urls.values():
        held = stack.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=counts)["Attributes"]
        if any(int(held[count]) for count in counts):
            for each in stack.queue_urls.values():
                stack.sqs.delete_queue(QueueUrl=each)
            stack.queue_urls = create_queues(template, stack.sqs)
            break
    return stack


@pytest.fixture
def aws(request: pytest.FixtureRequest, template: LocalTemplate, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """A fresh moto account holding the template's tables and queues, and the functions' environment
    (in a module marked one_account_per_module: the module's account, emptied)."""
    use_moto_credentials(monkeypatch)
    if request.node.get_closest_marker(ONE_ACCOUNT):
        yield from in_function_environment(
            emptied(request.getfixturevalue("module_account"), template), template, monkeypatch
        )
        return
    with mock_aws():
        yield from in_function_environment(new_account(template), template, monkeypatch)


@pytest.fixture(scope="module")
def module_account(template: LocalTemplate) -> Iterator[Stack]:
    """One moto account for a module's tests: making a fresh one (clients, tables, queues) is
    most of a short test's time."""
    with pytest.MonkeyPatch.context() as credentials:
        use_moto_credentials(credentials)
        with mock_aws():
            yield new_account(template)


@pytest.fixture(scope="session")
def handlers(template: LocalTemplate) -> Iterator[dict[str, Callable[..., Any]]]:
    """Each function's handler, imported as the local stack imports it (its environment set
    first, as Lambda sets it before init); called with a Lambda context like the runtime's
    when the test passes none."""

    def with_context(name: str, handler: Handler) -> Callable[..., Any]:
        def invoke(event: dict[str, Any], context: Any = None) -> Any:
            return handler(event, context or LambdaContext(name, 512, 10, "us-east-1"))

        return invoke

    with pytest.MonkeyPatch.context() as session_env:
        for name, value in function_environment(template, {}).items():
            session_env.setenv(name, value)
        yield {
            name: with_context(
                name,
                load_handler(
                    ROOT / (function.codeuri or ""),
                    function.handler or "",
                    f"test_fn_{name}",
                    own_environment(function),
                ),
            )
            for name, function in template.functions.items()
        }


@pytest.fixture
def api(aws: Stack, handlers: dict[str, Callable[..., Any]]) -> ApiClient:
    """The link API through the handlers, as the holder of one new API key."""
    return ApiClient(through_handlers(handlers), aws.new_api_key)
