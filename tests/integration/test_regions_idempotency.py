"""Idempotent creates in a deployment of three regions. Idempotency records are written in the
region that answered and replicated like any item, so the bound (docs/regions.md) is: a retry
that reaches another region after the record has replicated gets the first answer; one that
reaches it within the replication lag may make a second link of a generated code, never of a
slug (decided at home: the retry is refused, 409)."""

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.events import bearer, http_event
from tests.integration.regions import AWAY, Deployment, deployment

IDEMPOTENCY = "IdempotencyTable"


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


def create_in(regions: Deployment, handlers, region: str, key: str, body: dict[str, str]) -> tuple[int, dict[str, Any]]:
    regions.enter(region)
    headers = {**bearer(key), "Idempotency-Key": "order-42"}
    response = handlers["CreateFunction"](http_event("POST", "/links", headers=headers, body=body), None)
    return response["statusCode"], json.loads(response["body"])


def test_a_retry_in_another_region_after_the_record_replicated_gets_the_first_answer(regions, handlers):
    key = regions.new_api_key()
    first = create_in(regions, handlers, AWAY[0], key, {"url": "https://example.com/order"})
    assert first[0] == 201
    regions.replicate(AWAY[0], (IDEMPOTENCY,))
    assert create_in(regions, handlers, AWAY[1], key, {"url": "https://example.com/order"}) == first


def test_a_retry_in_another_region_within_the_lag_may_make_a_generated_code_twice_never_a_slug(regions, handlers):
    key = regions.new_api_key()
    # A generated code: the other region has no record yet, and makes a second link (the stated bound)
    first = create_in(regions, handlers, AWAY[0], key, {"url": "https://example.com/order"})
    again = create_in(regions, handlers, AWAY[1], key, {"url": "https://example.com/order"})
    assert (first[0], again[0]) == (201, 201)
    assert first[1]["code"] != again[1]["code"]
    # A slug: its claim is the home region's conditional write, so the retry is refused, not made twice
    slug = {"url": "https://example.com/order", "slug": "order-42"}
    regions.enter(AWAY[0])
    headers = {**bearer(key), "Idempotency-Key": "order-43"}
    made = handlers["CreateFunction"](http_event("POST", "/links", headers=headers, body=slug), None)
    assert made["statusCode"] == 201
    regions.enter(AWAY[1])
    retried = handlers["CreateFunction"](http_event("POST", "/links", headers=headers, body=slug), None)
    assert retried["statusCode"] == 409
