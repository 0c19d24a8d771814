import re
from datetime import UTC, datetime

import pytest

from shortlink.access.api_keys import (
    ApiKey,
    authenticate,
    bearer_token,
    generate_api_key,
    hash_api_key,
    key_id_for,
    writes,
)
from shortlink.clicks.events import ClickEvent, ClickPack, OrphanVisit
from tests.fakes import InMemoryApiKeys

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_generated_keys_are_long_random_and_hashed_for_storage():
    keys = {generate_api_key() for _ in range(100)}
    assert len(keys) == 100
    assert all(re.fullmatch(r"sl_[0-9A-Za-z]{32}", key) for key in keys)
    key = keys.pop()
    assert hash_api_key(key) == hash_api_key(key) != key
    assert key not in hash_api_key(key)


@pytest.mark.parametrize(
    ("header", "token"),
    [("Bearer abc", "abc"), ("bearer   abc ", "abc"), ("Basic abc", None), ("Bearer ", None), (None, None)],
)
def test_bearer_token_parsing(header, token):
    assert bearer_token(header) == token


def test_authenticate_accepts_only_active_known_keys():
    active, revoked = generate_api_key(), generate_api_key()
    store = InMemoryApiKeys(
        {
            hash_api_key(active): ApiKey(key_id_for(hash_api_key(active)), "a", NOW),
            hash_api_key(revoked): ApiKey(key_id_for(hash_api_key(revoked)), "r", NOW, revoked=True),
        }
    )
    assert authenticate(f"Bearer {active}", store, NOW) is not None
    assert authenticate(f"Bearer {revoked}", store, NOW) is None
    assert authenticate(f"Bearer {generate_api_key()}", store, NOW) is None
    assert authenticate("Bearer " + "x" * 500, store, NOW) is None


@pytest.mark.parametrize(
    ("method", "writing"),
    [
        ("GET", False),
        ("head", False),
        ("OPTIONS", False),
        ("POST", True),
        ("PATCH", True),
        ("DELETE", True),
        ("PUT", True),
    ],
)
def test_a_request_that_may_change_something_checks_its_key_as_the_latest_change_left_it(method, writing):
    # Given a known key
    key = generate_api_key()
    store = InMemoryApiKeys({hash_api_key(key): ApiKey(key_id_for(hash_api_key(key)), "k", NOW)})
    # When a request of this method authenticates with it
    assert authenticate(f"Bearer {key}", store, NOW, fresh=writes(method)) is not None
    # Then the lookup is fresh exactly when the method may write
    assert writes(method) is writing
    assert store.fresh_lookups == int(writing)


def test_click_events_round_trip():
    click = ClickEvent("id-1", "abc", NOW, country="DE", device="mobile", agent="crawler", visitor="ab" * 16)
    assert ClickEvent.from_json(click.to_json()) == click


def test_clicks_queued_before_ids_existed_take_their_message_id():
    old = ClickEvent.from_json('{"code": "abc", "at": "2026-01-01T00:00:00+00:00"}', fallback_id="m-1")
    assert (old.click_id, old.country, old.referrer) == ("m-1", "XX", "(direct)")


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "{}",
        '{"code": "", "at": "2026-01-01T00:00:00"}',
        '{"code": "a"}',
        '{"code": "' + "x" * 5000 + '", "at": "2026-01-01T00:00:00"}',
        '{"code": "a/b", "at": "2026-01-01T00:00:00"}',
        '{"code": "a", "click_id": "c", "at": "0001-01-01T00:00:00+01:00"}',
    ],
)
def test_malformed_click_events_are_refused(body):
    with pytest.raises((ValueError, KeyError, TypeError)):
        ClickEvent.from_json(body)


def test_a_pack_reads_back_as_written_and_a_single_click_is_a_pack_of_one():
    at = datetime(2026, 11, 30, 14, 5, tzinfo=UTC)
    clicks = (ClickEvent("c-1", "abc", at, country="DE"), ClickEvent("c-2", "abd", at, agent="crawler"))
    orphans = (OrphanVisit("nosuch", "unknown", "2026-11-30T14", 3), OrphanVisit("abe", "expired", "2026-11-30T14", 1))
    for pack in (ClickPack("p-1", clicks), ClickPack("p-2", clicks, orphans), ClickPack("p-3", (), orphans)):
        assert ClickPack.from_message(pack.to_json(), message_id="m-1") == pack
    single = ClickPack.from_message(clicks[0].to_json(), message_id="m-2")
    assert single == ClickPack("c-1", clicks[:1])


ORPHAN_PACK = '{"v": 2, "pack": "p", "clicks": [], "orphans": [{"code": "x", "outcome": %s, "hour": %s, "count": %s}]}'


@pytest.mark.parametrize(
    "body",
    [
        "[]",
        '{"v": 2, "clicks": [{"code": "abc", "at": "2026-01-01T00:00:00+00:00", "click_id": "c"}]}',
        '{"v": 2, "pack": "p", "clicks": []}',
        '{"v": 2, "pack": "p", "clicks": [{"code": "abc", "at": "2026-01-01T00:00:00"}]}',
        ORPHAN_PACK % ('"lost"', '"2026-11-30T14"', 1),
        ORPHAN_PACK % ('"unknown"', '"2026-11-30"', 1),
        ORPHAN_PACK % ('"unknown"', '"2026-11-30T14"', 0),
        ORPHAN_PACK % ('"unknown"', '"2026-11-30T14"', "true"),
    ],
)
def test_a_malformed_pack_is_refused_whole(body):
    with pytest.raises((ValueError, KeyError, TypeError)):
        ClickPack.from_message(body, message_id="m-1")
