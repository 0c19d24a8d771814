"""Changes reach every region's redirect within the replication lag plus the link cache's TTL:
a region answers from its own replica, through its environments' caches."""

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.links.model import LinkChanges
from shortlink.links.use_cases import delete_link, edit_link
from tests.events import bearer, http_event
from tests.integration.regions import AWAY, HOME, Deployment, deployment, follow

LINKS = "LinksTable"
TTL_SECONDS = 1


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


@pytest.mark.slow
def test_an_edit_and_a_delete_reach_another_region_within_the_lag_plus_the_cache_ttl(regions, handlers):
    # Given a link made at home and replicated, followed in another region (now in its cache)
    key = regions.new_api_key()
    owner = key_id_for(hash_api_key(key))
    regions.enter(HOME)
    body = {"url": "https://example.com/before"}
    created = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body), None)
    code = json.loads(created["body"])["code"]
    regions.replicate(HOME, (LINKS,))
    regions.enter(AWAY[1], LINK_CACHE_TTL_SECONDS=str(TTL_SECONDS))
    assert follow(handlers, code).headers["location"] == "https://example.com/before"
    home = DynamoLinkRepository(LINKS, HOME)

    # When the home region edits it, and replication lags
    edit_link(code, owner, LinkChanges(url="https://example.com/after"), home, datetime.now(UTC))
    time.sleep(TTL_SECONDS + 0.2)
    # Then past the cache's TTL the region still answers its replica's version
    assert follow(handlers, code).headers["location"] == "https://example.com/before"
    # And once the edit has replicated, at most one TTL later it answers the new one
    regions.replicate(HOME, (LINKS,))
    time.sleep(TTL_SECONDS + 0.2)
    assert follow(handlers, code).headers["location"] == "https://example.com/after"

    # When the home region deletes it: the same bound
    delete_link(code, owner, home, datetime.now(UTC))
    regions.replicate(HOME, (LINKS,))
    time.sleep(TTL_SECONDS + 0.2)
    assert follow(handlers, code).status == 410
