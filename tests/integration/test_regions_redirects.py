"""The redirect away from the home region costs what it costs at home: a hit makes no DynamoDB
call, a miss one GetItem of this region's replica; only a link with max_clicks adds its one
UpdateItem, in the home region's table."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from botocore.client import BaseClient

from tests.events import bearer, http_event
from tests.integration.regions import AWAY, HOME, Deployment, deployment, follow

_original = BaseClient._make_api_call  # type: ignore[attr-defined]


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


@contextmanager
def dynamodb_calls() -> Iterator[list[tuple[str, str]]]:
    """The DynamoDB operations made meanwhile, each with the region it was sent to."""
    calls: list[tuple[str, str]] = []

    def record(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        if client.meta.service_model.service_name == "dynamodb":
            calls.append((operation, client.meta.region_name))
        return _original(client, operation, params)

    with mock.patch.object(BaseClient, "_make_api_call", autospec=True, side_effect=record):
        yield calls


def made_at_home(regions: Deployment, handlers, key: str, body: dict[str, Any]) -> str:
    regions.enter(HOME)
    response = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body), None)
    assert response["statusCode"] == 201, response
    regions.replicate(HOME, ("LinksTable",))
    return str(json.loads(response["body"])["code"])


def test_away_from_home_a_miss_is_one_local_getitem_and_a_hit_none(regions, handlers):
    key = regions.new_api_key()
    plain = made_at_home(regions, handlers, key, {"url": "https://example.com/plain"})
    budgeted = made_at_home(regions, handlers, key, {"url": "https://example.com/once", "max_clicks": 5})
    region = AWAY[1]
    regions.enter(region)
    with dynamodb_calls() as calls:
        assert follow(handlers, plain).status == 302
    assert calls == [("GetItem", region)]
    with dynamodb_calls() as calls:
        assert follow(handlers, plain).status == 302
    assert calls == []
    # A link with max_clicks: its follow's one conditional update goes home
    with dynamodb_calls() as calls:
        assert follow(handlers, budgeted).status == 302
    assert calls == [("GetItem", region), ("UpdateItem", HOME)]
