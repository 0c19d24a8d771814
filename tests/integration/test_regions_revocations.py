"""Revocations in a deployment of three regions: once a key's revocation, a console session's
sign-out or a person's removal has returned at home, no region accepts a write of theirs, even
before the change has replicated there (a write checks its caller in the home region's table,
strongly consistent); reads may go on within the replication lag, as documented."""

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.errors import StorageUnavailable
from shortlink.people.model import Membership
from tests.integration.regions import AWAY, HOME, REGIONS, Deployment, deployment
from tests.integration.test_console import Browser, signed_in
from tests.integration.test_regions_writes import call

KEYS = "ApiKeysTable"


@pytest.fixture
def regions(template, monkeypatch) -> Iterator[Deployment]:
    yield from deployment(template, monkeypatch)


def link_count(regions: Deployment) -> int:
    return sum(1 for region in REGIONS for item in regions.items(region, "LinksTable") if "url" in item)


def test_a_key_revoked_at_home_writes_nowhere_from_that_moment(regions, handlers):
    # Given an admin key known in every region
    key = regions.new_api_key()
    regions.replicate(HOME, (KEYS,))
    # When it is revoked at home (by itself: it is its account's admin), nothing replicated yet
    regions.enter(HOME)
    key_id = key_id_for(hash_api_key(key))
    status, _ = call(
        handlers, "KeysFunction", "DELETE", f"/keys/{key_id}", key, route="/keys/{key_id}",
        path_parameters={"key_id": key_id},
    )  # fmt: skip
    assert status == 204
    for region in AWAY:
        regions.enter(region)
        # Then no region takes a write of it: a link, a slug, a key
        for function, path, body in (
            ("CreateFunction", "/links", {"url": "https://example.com/late"}),
            ("CreateFunction", "/links", {"url": "https://example.com/late", "slug": "late"}),
            ("KeysFunction", "/keys", {"name": "heir", "scopes": ["links:read"]}),
        ):
            status, answer = call(handlers, function, "POST", path, key, body)
            assert status == 401, (region, path, answer)
        # While its reads may go on until the revocation replicates (the documented lag)
        assert call(handlers, "ManageFunction", "GET", "/links", key)[0] == 200
    assert link_count(regions) == 0
    # And once it has replicated, not even those
    regions.replicate(HOME, (KEYS,))
    for region in AWAY:
        regions.enter(region)
        assert call(handlers, "ManageFunction", "GET", "/links", key)[0] == 401


def test_a_console_session_signed_out_in_one_region_posts_nothing_in_another(regions, handlers):
    # Given a console session of a key, and a copy of its cookie (another tab, another region)
    key = regions.new_api_key()
    regions.replicate(HOME, (KEYS,))
    regions.enter(AWAY[0])
    browser = signed_in(Browser(handlers), key)
    other_tab, kept = Browser(handlers), browser.cookie
    other_tab.cookie = kept
    csrf = other_tab.csrf()
    # When it signs out there (the session generation moves on at home, not replicated yet)
    assert browser.post("/console/sign-out", {"csrf": browser.csrf()})["headers"]["Location"] == "/console/sign-in"
    for region in REGIONS:
        regions.enter(region)
        # Then no region takes a post of the old session (each refusal forgets the cookie: it is sent again)
        other_tab.cookie = kept
        answer = other_tab.post("/console/links", {"csrf": csrf, "url": "https://example.com/after"})
        assert (answer["statusCode"], answer["headers"]["Location"]) == (303, "/console/sign-in?why=ended"), region
    assert link_count(regions) == 0


def test_a_person_removed_at_home_is_no_member_for_a_write_anywhere(regions):
    # Given a member of a workspace, known in every region
    regions.enter(HOME)
    member = Membership("ws-1", "person-1", "person@example.com", "editor", datetime.now(UTC))
    assert services.memberships().add(member)
    regions.replicate(HOME, (KEYS,))
    # When they are removed at home
    assert services.memberships().remove("ws-1", "person-1", datetime.now(UTC))
    for region in AWAY:
        regions.enter(region)
        # Then a write's check finds no membership in any region, a read's the replica's
        assert services.memberships().membership_in("ws-1", "person-1", fresh=True) is None
        assert services.memberships().membership_in("ws-1", "person-1") == member


def test_while_home_cannot_be_reached_a_write_checks_its_key_in_this_regions_replica(regions):
    # Given a key known in every region, and the home region's keys table out of reach
    key = regions.new_api_key()
    regions.replicate(HOME, (KEYS,))
    regions.dynamodb(HOME).delete_table(TableName=KEYS)
    for region in AWAY:
        regions.enter(region)
        # Then a write's fresh lookup takes the replica's key (no revocation can return meanwhile)
        found = services.api_key_store().find_by_hash(hash_api_key(key), fresh=True)
        assert found is not None
        assert found.key_id == key_id_for(hash_api_key(key))
    # While at home itself the failure is the request's (nothing to fall back on)
    regions.enter(HOME)
    with pytest.raises(StorageUnavailable):
        services.api_key_store().find_by_hash(hash_api_key(key), fresh=True)
