"""The redirect away from the home region: a hit makes no DynamoDB call, a miss one GetItem of
this region's replica and, for a code it lacks, one of the home region's (where slugs and
max_clicks links are written: none 404s where it was just made); a link with max_clicks adds its
one UpdateItem, in the home region's table."""

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


def test_away_from_home_a_miss_of_a_replicated_link_is_one_local_getitem_and_a_hit_none(regions, handlers):
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


@pytest.mark.parametrize(
    "body",
    [{"slug": "spring-sale"}, {"max_clicks": 5}],
    ids=["slug", "max_clicks"],
)
def test_a_link_written_at_home_from_away_redirects_at_once_in_every_region(regions, handlers, body):
    # Given a link made away from home whose write is the home region's, replicated nowhere yet
    key = regions.new_api_key()
    regions.enter(AWAY[0])
    event = http_event("POST", "/links", headers=bearer(key), body={"url": "https://example.com/new", **body})
    response = handlers["CreateFunction"](event, None)
    assert response["statusCode"] == 201, response
    code = json.loads(response["body"])["code"]
    for region in AWAY:
        regions.enter(region)
        # Then it redirects in the region that made it and in the others, its miss asking home
        with dynamodb_calls() as calls:
            assert follow(handlers, code).status == 302
        assert calls[:2] == [("GetItem", region), ("GetItem", HOME)]
        # and is cached as any link: the next follow asks nobody but the budget
        with dynamodb_calls() as calls:
            assert follow(handlers, code).status == 302
        assert calls == ([("UpdateItem", HOME)] if "max_clicks" in body else [])


def test_an_unknown_code_away_from_home_costs_two_getitems_then_none_while_cached(regions, handlers):
    region = AWAY[1]
    regions.enter(region)
    with dynamodb_calls() as calls:
        assert follow(handlers, "nosuch1").status == 404
    assert calls == [("GetItem", region), ("GetItem", HOME)]
    # The negative cache keeps a guesser's repeats at no call at all
    with dynamodb_calls() as calls:
        assert follow(handlers, "nosuch1").status == 404
    assert calls == []


def test_a_home_region_out_of_reach_leaves_a_miss_a_404_and_is_not_asked_again_for_a_while(regions, handlers):
    # Given the home region's links table out of reach
    regions.dynamodb(HOME).delete_table(TableName="LinksTable")
    region = AWAY[0]
    regions.enter(region)
    # Then an unknown code is a 404 here, not a 503
    with dynamodb_calls() as calls:
        assert follow(handlers, "nosuch2").status == 404
    assert calls[0] == ("GetItem", region)
    assert set(calls[1:]) == {("GetItem", HOME)}
    # And the next miss does not ask home again (the negative cache's time to live)
    with dynamodb_calls() as calls:
        assert follow(handlers, "nosuch3").status == 404
    assert calls == [("GetItem", region)]
