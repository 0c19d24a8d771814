"""Limits in a deployment of three regions: max_clicks is exact in total however the follows
spread over the regions (its one conditional update is the home region's), and so are the limits
on guesses (password and sign-in attempts, counted in the home region's items)."""

import json
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from uuid import uuid4

import boto3
import pytest

from shortlink import wiring as services
from shortlink.access.rate_limits import take_sign_in_attempt, take_unlock_attempt
from shortlink.errors import RateLimited
from tests.e2e.running_stack import DYNALITE, Dynalite
from tests.events import bearer, http_event
from tests.integration.regions import AWAY, HOME, REGIONS, Deployment, deployment, follow
from tools.developers.devstack.resources import create_tables

LINKS, COUNTERS = "LinksTable", "CountersTable"


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


def budgeted_link(regions: Deployment, handlers, max_clicks: int) -> str:
    key = regions.new_api_key()
    regions.enter(HOME)
    body = {"url": "https://example.com/offer", "max_clicks": max_clicks}
    response = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body), None)
    assert response["statusCode"] == 201, response
    regions.replicate(HOME, (LINKS,))
    return str(json.loads(response["body"])["code"])


def test_max_clicks_7_followed_30_times_across_three_regions_redirects_exactly_7_times(regions, handlers):
    # Given a link with max_clicks = 7, made at home and replicated everywhere
    code = budgeted_link(regions, handlers, 7)
    # When it is followed 30 times, round the three regions (each region's redirect)
    statuses: Counter[int] = Counter()
    for follow_number in range(30):
        regions.enter(REGIONS[follow_number % 3])
        statuses[follow(handlers, code).status] += 1
    # Then exactly 7 redirects, and 410 for the rest
    assert statuses == {302: 7, 410: 23}
    # And the budget was counted in the home region's item only
    used = {region: regions.item(region, LINKS, {"code": {"S": code}}).get("clicks_used") for region in REGIONS}
    assert used == {HOME: {"N": "7"}, REGIONS[1]: None, REGIONS[2]: None}


def test_concurrent_follows_in_three_regions_take_exactly_the_budget(regions, template, monkeypatch):
    # On dynalite, which serialises an item's writes as DynamoDB does: moto, called from several
    # threads at once, can let two conditional updates of one item pass (tests/integration/test_concurrency.py).
    if not DYNALITE.exists():
        pytest.skip("dynalite is not installed: run `npm ci` (make test does)")
    dynalite = Dynalite.start()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynalite.endpoint)
        store = boto3.client("dynamodb", region_name=HOME, endpoint_url=dynalite.endpoint)
        create_tables(template, store)
        store.put_item(TableName=LINKS, Item={"code": {"S": "budget7"}, "max_clicks": {"N": "7"}})
        budgets = []
        for region in REGIONS:  # each region's own adapter, as its functions build it
            regions.enter(region)
            budgets.append(services.click_budget())
        with ThreadPoolExecutor(6) as pool:
            taken = list(pool.map(lambda n: budgets[n % 3].take("budget7"), range(30)))
        assert taken.count(True) == 7
        assert store.get_item(TableName=LINKS, Key={"code": {"S": "budget7"}})["Item"]["clicks_used"] == {"N": "7"}
    finally:
        dynalite.stop()


@pytest.mark.parametrize(
    "take",
    [
        lambda log, limit, now: take_unlock_attempt("secret1", "198.51.100.7", limit, now, log),
        lambda log, limit, now: take_sign_in_attempt("198.51.100.7", limit, now, log),
        # a failure per attempt from addresses of their own, at one account
        lambda log, limit, now: take_sign_in_attempt(f"198.51.100.{uuid4().int % 250}", 1000, now, log, "a@b.c", limit),
    ],
    ids=["password", "sign-in per address", "sign-in per account"],
)
def test_guesses_are_bounded_by_the_limit_however_they_spread_over_the_regions(regions, take):
    # Given a limit of 4 attempts per window and a guesser who goes round every region
    limit, now = 4, datetime.now(UTC)
    allowed: Counter[str] = Counter()
    for attempt in range(3 * (limit + 3)):
        region = REGIONS[attempt % 3]
        regions.enter(region)
        try:
            take(services.attempt_log(), limit, now)
            allowed[region] += 1
        except RateLimited:
            pass
    # Then the limit holds in total: every region counted in the home region's items
    assert sum(allowed.values()) == limit
    assert all(not any("#log" in item["name"]["S"] for item in regions.items(region, COUNTERS)) for region in AWAY)
