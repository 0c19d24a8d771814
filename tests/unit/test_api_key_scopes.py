"""API keys' scopes, expiry and "last used" day: pure domain rules, no AWS."""

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from shortlink.access.api_keys import (
    ADMIN,
    ALL_SCOPES,
    LINKS_READ,
    LINKS_WRITE,
    MEMBERS_READ,
    MEMBERS_WRITE,
    STATS_READ,
    ApiKey,
    authenticate,
    first_scope_not_held,
    generate_api_key,
    hash_api_key,
    issue_account_key,
    issue_api_key,
    key_id_for,
)
from shortlink.errors import InvalidApiKeyOption
from tests.fakes import InMemoryApiKeys

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def stored(key: ApiKey) -> tuple[str, InMemoryApiKeys]:
    """A clear-text key and a store that holds `key` under its hash."""
    plaintext = generate_api_key()
    key_hash = hash_api_key(plaintext)
    return plaintext, InMemoryApiKeys({key_hash: replace(key, key_id=key_id_for(key_hash))})


def test_a_key_without_recorded_scopes_has_all_of_them_and_is_its_own_account():
    key = ApiKey("abc123def456", "legacy", NOW)
    assert key.scopes == ALL_SCOPES == {LINKS_READ, LINKS_WRITE, STATS_READ, ADMIN, MEMBERS_READ, MEMBERS_WRITE}
    assert all(key.allows(scope) for scope in ALL_SCOPES)
    assert key.owner == "abc123def456"


def test_a_scoped_key_allows_only_its_scopes_and_admin_implies_nothing_else():
    reader = ApiKey("k1", "board", NOW, scopes=frozenset({LINKS_READ, STATS_READ}), owner="acct")
    assert (reader.allows(LINKS_READ), reader.allows(STATS_READ)) == (True, True)
    assert (reader.allows(LINKS_WRITE), reader.allows(ADMIN)) == (False, False)
    admin = ApiKey("k2", "keys only", NOW, scopes=frozenset({ADMIN}))
    assert not admin.allows(LINKS_WRITE)
    assert reader.owner == "acct"


@pytest.mark.parametrize(
    ("expires_at", "state"),
    [(None, "active"), (NOW + timedelta(seconds=1), "active"), (NOW, "expired"), (NOW - timedelta(days=1), "expired")],
)
def test_an_expired_key_is_refused_like_a_revoked_one(expires_at, state):
    plaintext, store = stored(ApiKey("", "ci", NOW - timedelta(days=10), expires_at=expires_at))
    assert next(iter(store.keys.values())).state(NOW) == state
    assert (authenticate(f"Bearer {plaintext}", store, NOW) is not None) == (state == "active")
    revoked = ApiKey("x", "old", NOW, revoked=True, expires_at=NOW - timedelta(days=1))
    assert revoked.state(NOW) == "revoked"


def test_the_last_used_day_is_written_once_per_key_and_utc_day():
    # Given a key never used
    plaintext, store = stored(ApiKey("", "ci", NOW - timedelta(days=3)))
    header = f"Bearer {plaintext}"
    # When it is used 50 times on one day, then 50 times on the next
    seen = [authenticate(header, store, NOW + timedelta(minutes=minute)) for minute in range(50)]
    assert store.writes == 1
    tomorrow = NOW + timedelta(days=1)
    for minute in range(50):
        authenticate(header, store, tomorrow + timedelta(minutes=minute))
    # Then one write per day, and each answer knows the day
    assert store.writes == 2
    assert {key.last_used_on for key in seen if key} == {date(2026, 12, 1)}
    assert next(iter(store.keys.values())).last_used_on == date(2026, 12, 2)


def test_a_busy_table_does_not_refuse_a_valid_key_it_cannot_mark():
    plaintext, store = stored(ApiKey("", "ci", NOW))
    store.busy = True
    key = authenticate(f"Bearer {plaintext}", store, NOW)
    assert key is not None
    assert key.last_used_on is None
    assert store.writes == 0


class Registry:
    def __init__(self) -> None:
        self.added: list[ApiKey] = []

    def add(self, key_hash, key_id, name, *, scopes=ALL_SCOPES, expires_at=None, owner="", maker="", maker_email=""):
        key = ApiKey(
            key_id, name, NOW, scopes=scopes, expires_at=expires_at, owner=owner, maker=maker, maker_email=maker_email
        )
        self.added.append(key)
        return key


def test_a_new_key_is_shown_once_stored_by_hash_and_joins_the_given_account():
    registry = Registry()
    key, plaintext = issue_api_key(registry, "board", frozenset({LINKS_READ}), NOW + timedelta(days=1), NOW, "acct")
    assert key.key_id == key_id_for(hash_api_key(plaintext))
    assert (key.owner, key.expires_at) == ("acct", NOW + timedelta(days=1))
    assert key.scopes == {LINKS_READ}
    own, _ = issue_api_key(registry, "root", ALL_SCOPES, None, NOW)
    assert own.owner == own.key_id
    assert len(registry.added) == 2


@pytest.mark.parametrize(
    ("name", "scopes", "expires_at", "field"),
    [
        ("", frozenset({LINKS_READ}), None, "name"),
        ("x" * 65, frozenset({LINKS_READ}), None, "name"),
        ("tab\there", frozenset({LINKS_READ}), None, "name"),
        ("ok", frozenset(), None, "scopes"),
        ("ok", frozenset({"links:delete"}), None, "scopes"),
        ("ok", frozenset({LINKS_READ}), NOW, "expires_at"),
        ("ok", frozenset({LINKS_READ}), NOW - timedelta(days=1), "expires_at"),
    ],
)
def test_a_new_key_is_refused_naming_the_field(name, scopes, expires_at, field):
    registry = Registry()
    with pytest.raises(InvalidApiKeyOption, match=f"^{field}: ") as refused:
        issue_api_key(registry, name, scopes, expires_at, NOW)
    assert refused.value.field == field
    assert registry.added == []


def test_a_key_grants_only_scopes_it_holds():
    admin_only = ApiKey("k", "keys", NOW, scopes=frozenset({ADMIN}))
    assert first_scope_not_held(admin_only, frozenset({ADMIN})) is None
    assert first_scope_not_held(admin_only, frozenset({STATS_READ, LINKS_WRITE})) == LINKS_WRITE
    assert first_scope_not_held(ApiKey("k", "all", NOW), ALL_SCOPES) is None


def test_a_child_key_never_outlives_its_creator():
    creator = ApiKey("k", "ci", NOW, scopes=frozenset({ADMIN, LINKS_READ}), expires_at=NOW + timedelta(days=1))
    registry = Registry()
    # Left out, the expiry is the creator's; an earlier one is kept
    inherited, _ = issue_account_key(registry, creator, "a", frozenset({LINKS_READ}), None, NOW)
    assert inherited.expires_at == creator.expires_at
    earlier, _ = issue_account_key(registry, creator, "b", frozenset({LINKS_READ}), NOW + timedelta(hours=1), NOW)
    assert earlier.expires_at == NOW + timedelta(hours=1)
    # A later one is refused, naming the field and the creator's own expiry
    with pytest.raises(InvalidApiKeyOption, match=r"^expires_at: must be no later than .*2026") as refused:
        issue_account_key(registry, creator, "c", frozenset({LINKS_READ}), NOW + timedelta(days=3650), NOW)
    assert refused.value.field == "expires_at"
    assert len(registry.added) == 2
    # A creator that never expires makes keys that may not either
    forever = ApiKey("k", "root", NOW)
    assert issue_account_key(registry, forever, "d", frozenset({LINKS_READ}), None, NOW)[0].expires_at is None
