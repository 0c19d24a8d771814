"""The console's Keys page, against moto: an admin key lists, creates (scopes, expiry, the key
shown once) and revokes its account's keys with the domain code `/keys` uses; other keys never
see it; bad forms get the API's messages at their field and write nothing."""

import re
from datetime import UTC, datetime
from typing import Any

from shortlink.access.api_keys import ApiKey, hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests.integration.test_console import Browser, browser, scoped_key, signed_in

__all__ = ["browser"]  # a fixture, used by name


def keys_store() -> DynamoApiKeyStore:
    return DynamoApiKeyStore(resources().api_keys_table.value)


def stored(plaintext: str) -> ApiKey:
    key = keys_store().find_by_hash(hash_api_key(plaintext))
    assert key is not None
    return key


def create_key(browser: Browser, **fields: str | list[str]) -> dict[str, Any]:
    return browser.post("/console/keys", {"csrf": browser.csrf("/console/keys"), **fields})


def test_an_admin_key_creates_a_scoped_expiring_key_shown_once_lists_it_and_revokes_it(aws, handlers, browser):
    # Given an admin key signed in
    admin_key = aws.new_api_key("owner")
    admin_id = key_id_for(hash_api_key(admin_key))
    signed_in(browser, admin_key)
    listing = browser.get("/console")
    assert 'href="/console/keys"' in listing["body"]

    # When it creates a read-only key that expires
    scopes = ["links:read", "stats:read"]
    answer = create_key(browser, name="Dashboard", scopes=scopes, expires_at="2030-01-01T00:00:00Z")

    # Then the key is shown this once, stored with its scopes, expiry and the admin's account
    assert answer["statusCode"] == 201, answer["body"]
    shown = re.search(r'<code id="new-key">(sl_[0-9A-Za-z]{32})</code>', answer["body"])
    assert shown is not None
    new_key = stored(shown.group(1))
    assert (new_key.name, new_key.scopes, new_key.owner) == ("Dashboard", frozenset(scopes), admin_id)
    assert new_key.expires_at == datetime(2030, 1, 1, tzinfo=UTC)
    assert aws.item_count(resources().api_keys_table.value) == 2
    listed = browser.get("/console/keys")
    assert listed["statusCode"] == 200
    assert shown.group(1) not in listed["body"]
    row = re.search(rf'<tr data-key-id="{new_key.key_id}">(.*?)</tr>', listed["body"], re.S)
    assert row is not None
    assert "links:read, stats:read" in row.group(1)
    assert "active" in row.group(1)
    assert "2030-01-01" in row.group(1)
    assert "never" in row.group(1)  # not used yet

    # And the new key signs in, sees no Keys page, and is refused it
    viewer = signed_in(Browser(handlers), shown.group(1))
    assert 'href="/console/keys"' not in viewer.get("/console")["body"]
    refused = viewer.get("/console/keys")
    assert refused["statusCode"] == 403
    assert "admin" in refused["body"]

    # When the admin revokes it: stored revoked, and its session ends
    form = {"csrf": browser.csrf("/console/keys")}
    asked = browser.post(f"/console/keys/{new_key.key_id}/revoke", form)
    assert (asked["statusCode"], stored(shown.group(1)).revoked) == (200, False)  # Revoke asks first
    revoked = browser.post(f"/console/keys/{new_key.key_id}/revoke", {**form, "confirmed": "yes"})
    assert (revoked["statusCode"], revoked["headers"]["Location"]) == (303, "/console/keys")
    assert stored(shown.group(1)).revoked
    assert viewer.get("/console")["headers"]["Location"] == "/console/sign-in?why=ended"
    row = re.search(rf'<tr data-key-id="{new_key.key_id}">(.*?)</tr>', browser.get("/console/keys")["body"], re.S)
    assert row is not None
    assert "revoked" in row.group(1)
    assert "Revoke" not in row.group(1)


def test_the_key_form_shows_the_apis_422_at_each_field_and_writes_nothing(aws, browser):
    signed_in(browser, scoped_key("admin", "links:read"))
    before = aws.item_count(resources().api_keys_table.value)
    cases: list[tuple[dict[str, str | list[str]], str, str]] = [
        ({"scopes": ["links:read"]}, "name", "name"),
        ({"name": "no scopes"}, "scopes", "scopes"),
        ({"name": "bad scope", "scopes": ["links:everything"]}, "scopes", "scopes"),
        ({"name": "past", "scopes": ["links:read"], "expires_at": "2001-01-01T00:00:00Z"}, "expires_at", "future"),
        ({"name": "not a moment", "scopes": ["links:read"], "expires_at": "soon"}, "expires_at", "expires_at"),
        # A key grants only what it holds: this admin lacks links:write.
        ({"name": "stronger", "scopes": ["links:read", "links:write"]}, "scopes", "links:write"),
    ]
    for fields, field, words in cases:
        answer = create_key(browser, **fields)
        assert answer["statusCode"] == 422, fields
        error = re.search(rf'<p class="error field-error" id="{field}-error">([^<]*)</p>', answer["body"])
        assert error is not None, (fields, answer["body"])
        assert words in error.group(1), (fields, error.group(1))
        assert "sl_" not in answer["body"]
    assert aws.item_count(resources().api_keys_table.value) == before


def test_keys_are_managed_only_by_admin_keys_of_their_account_and_only_from_the_consoles_pages(aws, handlers, browser):
    # Given an admin key and a key of another account
    signed_in(browser, aws.new_api_key("owner"))
    other_key = aws.new_api_key("stranger")
    other = stored(other_key)
    keys_before = aws.item_count(resources().api_keys_table.value)

    # Then the other account's key is neither listed nor revocable
    assert f'data-key-id="{other.key_id}"' not in browser.get("/console/keys")["body"]
    token = browser.csrf("/console/keys")
    assert browser.post(f"/console/keys/{other.key_id}/revoke", {"csrf": token})["statusCode"] == 404
    assert browser.post("/console/keys/000000000000/revoke", {"csrf": token})["statusCode"] == 404
    assert not stored(other_key).revoked

    # And a post from another site, or without the session's token, creates nothing
    forged = Browser(handlers, origin="https://evil.example")
    forged.cookie = browser.cookie
    assert forged.post("/console/keys", {"csrf": token, "name": "x", "scopes": "links:read"})["statusCode"] == 403
    assert browser.post("/console/keys", {"name": "x", "scopes": "links:read"})["statusCode"] == 403
    assert aws.item_count(resources().api_keys_table.value) == keys_before

    # And a key without admin is refused the page and its posts
    writer = signed_in(Browser(handlers), scoped_key("links:read", "links:write"))
    keys_before += 1
    assert writer.get("/console/keys")["statusCode"] == 403
    assert (
        writer.post("/console/keys", {"csrf": writer.csrf(), "name": "x", "scopes": "links:read"})["statusCode"] == 403
    )
    assert aws.item_count(resources().api_keys_table.value) == keys_before
