"""Writes in a deployment of three regions: generated codes made where they are asked for, from
the region's own id partition; everything whose uniqueness or order matters made in the home
region's tables, whichever region's functions were asked."""

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from shortlink.adapters.dynamodb.link_store import SLUG_CLAIM_PREFIX
from shortlink.errors import StorageUnavailable
from shortlink.links.model import LinkChanges, LinkOptions
from shortlink.links.slugs import slug_key
from shortlink.links.use_cases import create_link, edit_link
from tests.events import bearer, http_event
from tests.integration.regions import AWAY, HOME, REGIONS, Deployment, deployment

LINKS, KEYS, COUNTERS, WEBHOOKS = "LinksTable", "ApiKeysTable", "CountersTable", "WebhooksTable"
AUDIT = "AuditLogTable"


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


def code_key(code: str) -> dict[str, dict[str, str]]:
    return {"code": {"S": code}}


def call(handlers, function, method, path, key, body=None, route=None, path_parameters=None):
    event = http_event(method, path, route=route, path_parameters=path_parameters, headers=bearer(key), body=body)
    response = handlers[function](event, None)
    return response["statusCode"], json.loads(response["body"] or "null")


def test_each_region_makes_generated_codes_here_from_its_own_id_partition(regions):
    # Given three regions, each creating links with generated codes
    made: dict[str, list[str]] = {}
    for region in REGIONS:
        regions.enter(region)
        codes, links = services.code_generator(), services.link_repository()
        now = datetime.now(UTC)
        made[region] = [
            create_link(f"https://example.com/{region}/{n}", "owner", codes, links, now).code for n in range(40)
        ]
    # Then no code was made twice
    every = [code for codes in made.values() for code in codes]
    assert len(set(every)) == len(every) == 120
    for region in REGIONS:
        # And each region's links were written in its own table, counted on its own counter
        here = {item["code"]["S"] for item in regions.items(region, LINKS)}
        assert here == set(made[region])
        counters = {item["name"]["S"] for item in regions.items(region, COUNTERS)}
        assert counters == {f"link-ids#{region}"}
    # And once replicated, the home region holds them all
    for region in AWAY:
        regions.replicate(region, (LINKS,))
    assert {item["code"]["S"] for item in regions.items(HOME, LINKS)} == set(every)


def test_a_slug_a_key_and_a_webhook_endpoint_made_away_are_written_at_home(regions, handlers):
    key = regions.new_api_key()
    regions.enter(AWAY[0])
    # When a region away from home is asked for a slug, an admin key and a webhook endpoint
    status, link = call(
        handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com", "slug": "spring"}
    )
    assert status == 201, link
    status, made_key = call(handlers, "KeysFunction", "POST", "/keys", key, {"name": "ci", "scopes": ["links:read"]})
    assert status == 201, made_key
    endpoint = {"url": "https://hooks.example.com/in", "events": ["link.created"]}
    status, hook = call(handlers, "WebhookEndpointsFunction", "POST", "/webhooks", key, endpoint)
    assert status == 201, hook
    # Then each was written in the home region's tables, none here
    claim = code_key(SLUG_CLAIM_PREFIX + slug_key("spring"))
    made_key_item = {"key_hash": {"S": hash_api_key(made_key["key"])}}
    for region, holds in ((HOME, True), (AWAY[0], False)):
        assert (regions.item(region, LINKS, code_key("spring")) is not None) is holds
        assert (regions.item(region, LINKS, claim) is not None) is holds
        assert (regions.item(region, KEYS, made_key_item) is not None) is holds
        assert bool(regions.items(region, WEBHOOKS)) is holds
        # with their audit entries, at home too (the log is written where the changes are)
        logged = sorted(item["ac"]["S"] for item in regions.items(region, AUDIT))
        assert logged == (["key.created", "link.created", "webhook.created"] if holds else [])
    # And the new key works away from home before it is replicated (found at home)
    status, listed = call(handlers, "ManageFunction", "GET", "/links", made_key["key"])
    assert status == 200, listed


def test_edits_deletes_and_restores_made_away_are_written_at_home(regions, handlers):
    key = regions.new_api_key()
    regions.enter(HOME)
    status, link = call(handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com/a"})
    assert status == 201, link
    regions.replicate(HOME, (LINKS,))
    code = link["code"]
    route, parameters = "/links/{code}", {"code": code}
    regions.enter(AWAY[1])
    # When a region away from home edits, deletes and restores the link
    status, edited = call(
        handlers, "ManageFunction", "PATCH", f"/links/{code}", key, {"url": "https://example.com/b"}, route, parameters
    )
    assert status == 200, edited
    status, _ = call(handlers, "ManageFunction", "DELETE", f"/links/{code}", key, None, route, parameters)
    assert status in (200, 204)
    # Then the home region's item has them, and this region's replica only what it was sent
    home_item = regions.item(HOME, LINKS, code_key(code))
    assert home_item is not None
    assert (home_item["url"]["S"], "deleted_at" in home_item) == ("https://example.com/b", True)
    assert regions.item(AWAY[1], LINKS, code_key(code))["url"]["S"] == "https://example.com/a"
    # And a restore made away is too
    restore = f"/links/{code}/restore"
    status, restored = call(handlers, "ManageFunction", "POST", restore, key, None, "/links/{code}/restore", parameters)
    assert status == 200, restored
    assert "deleted_at" not in regions.item(HOME, LINKS, code_key(code))


def test_a_link_made_away_that_home_has_not_received_yet_is_read_here_and_its_edit_asks_to_retry(regions):
    regions.enter(AWAY[0])
    links = services.link_repository()
    link = create_link("https://example.com/new", "owner", services.code_generator(), links, datetime.now(UTC))
    # Before replication: the API reads it here, and an edit (a home write) answers "retry shortly"
    assert links.get(link.code) == link
    with pytest.raises(StorageUnavailable, match="still replicating"):
        edit_link(link.code, "owner", LinkChanges(title="later"), links, datetime.now(UTC))
    # After it: the edit is made at home
    regions.replicate(AWAY[0], (LINKS,))
    assert edit_link(link.code, "owner", LinkChanges(title="later"), links, datetime.now(UTC)).title == "later"
    assert regions.item(HOME, LINKS, code_key(link.code))["title"]["S"] == "later"


def test_a_link_with_a_click_budget_made_away_is_written_at_home(regions):
    regions.enter(AWAY[1])
    link = create_link(
        "https://example.com/limited",
        "owner",
        services.code_generator(),
        services.link_repository(),
        datetime.now(UTC),
        LinkOptions(max_clicks=3),
    )
    assert regions.item(HOME, LINKS, code_key(link.code)) is not None
    assert regions.item(AWAY[1], LINKS, code_key(link.code)) is None


def test_random_codes_made_away_are_written_at_home_where_the_conditional_put_decides(regions):
    # Random codes are unique only by the conditional put, which sees one region's replica
    regions.enter(AWAY[0], CODE_MODE="random")
    link = create_link(
        "https://example.com/r", "owner", services.code_generator(), services.link_repository(), datetime.now(UTC)
    )
    assert regions.item(HOME, LINKS, code_key(link.code)) is not None
    assert regions.item(AWAY[0], LINKS, code_key(link.code)) is None
    assert regions.items(AWAY[0], COUNTERS) == []


def test_an_import_made_away_is_written_at_home_and_a_rerun_through_another_region_creates_nothing(regions, handlers):
    key = regions.new_api_key()
    body = (Path(__file__).resolve().parents[1] / "data" / "import" / "links.csv").read_text()

    def import_through(region: str) -> dict[str, Any]:
        regions.enter(region)
        event = http_event(
            "POST",
            "/links/import",
            headers={**bearer(key), "content-type": "text/csv"},
            body=body,
            query={"format": "auto"},
        )
        response = handlers["TransferFunction"](event, None)
        assert response["statusCode"] == 200, response
        return dict(json.loads(response["body"]))

    # When a region away from home imports a file: its links and claims are written at home
    first = import_through(AWAY[0])
    assert first["created"] == 2
    assert len(regions.items(HOME, LINKS)) == 4  # two links, a slug's claim, an imported record's claim
    assert regions.items(AWAY[0], LINKS) == []
    # And the same file through the other region, before any replication, creates nothing twice
    again = import_through(AWAY[1])
    assert (again["created"], again["skipped"]) == (0, 2)


def test_while_home_cannot_be_reached_a_generated_code_is_made_away_with_its_audit_entry_here(regions, handlers):
    # Given a key known everywhere, and every table of the home region out of reach
    key = regions.new_api_key()
    regions.replicate(HOME)
    for table in regions.tables:
        regions.dynamodb(HOME).delete_table(TableName=table)
    # (on a stack with short domains: workspaces may add their own, and a link to one loops,
    # which is checked against this region's replica of their claims)
    regions.enter(AWAY[0], SHORT_DOMAINS="sho.rt,go.example")
    # When a link of a generated code is asked for away from home
    status, link = call(handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com/outage"})
    # Then it is made here, and its audit entry kept in this region's replica until home returns
    assert status == 201, link
    assert regions.item(AWAY[0], LINKS, code_key(link["code"])) is not None
    [entry] = regions.items(AWAY[0], AUDIT)
    assert (entry["ac"]["S"], entry["ti"]["S"]) == ("link.created", link["code"])
    # While a slug, decided at home, is refused
    status, answer = call(
        handlers, "CreateFunction", "POST", "/links", key, {"url": "https://example.com", "slug": "x1"}
    )
    assert (status, answer["error"]) == (503, "unavailable")
