"""The admin command manages keys that the API then accepts or refuses."""

import json
from datetime import UTC, datetime

from tests.events import bearer, http_event
from tools.operators import admin


def test_create_list_revoke(aws, handlers, capsys):
    # Given a key created with the admin command
    assert admin.main(["--table", "ApiKeysTable", "keys", "create", "--name", "alice"]) == 0
    created = capsys.readouterr().out
    plaintext = created.strip().splitlines()[-1]
    key_id = created.split()[2]
    assert plaintext.startswith("sl_")
    # Then only its hash is stored
    items = aws.dynamodb.scan(TableName="ApiKeysTable")["Items"]
    assert plaintext not in json.dumps(items)
    # And it is listed and accepted
    assert admin.main(["--table", "ApiKeysTable", "keys", "list"]) == 0
    assert f"{key_id}  active" in capsys.readouterr().out
    event = http_event("POST", "/links", headers=bearer(plaintext), body={"url": "https://example.com"})
    assert handlers["CreateFunction"](event, None)["statusCode"] == 201
    # When it is revoked, it is refused
    assert admin.main(["--table", "ApiKeysTable", "keys", "revoke", key_id]) == 0
    assert handlers["CreateFunction"](event, None)["statusCode"] == 401
    assert admin.main(["--table", "ApiKeysTable", "keys", "revoke", "nosuchkey"]) == 1


def test_scoped_expiring_keys_of_an_account(aws, handlers, capsys):
    table = ["--table", "ApiKeysTable", "keys"]
    # Given an account's key and a link of it
    assert admin.main([*table, "create", "--name", "root"]) == 0
    root_id = capsys.readouterr().out.split()[2]
    root = aws.dynamodb.scan(TableName="ApiKeysTable")["Items"][0]
    assert root["scopes"]["SS"]
    assert "owner" not in root
    # When a read-only key that expires is created for that account
    options = ["--scope", "links:read", "--scope", "stats:read", "--expires", "2999-01-01", "--owner", root_id]
    assert admin.main([*table, "create", "--name", "board", *options]) == 0
    created = capsys.readouterr().out
    reader, reader_id = created.strip().splitlines()[-1], created.split()[2]
    # Then it is listed with its scopes, expiry, last use and account
    assert admin.main([*table, "list"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith(reader_id)]
    assert line.split() == [
        reader_id,
        "active",
        *line.split()[2:4],
        "used",
        "never",
        "expires",
        "2999-01-01T00:00Z",
        "links:read,stats:read",
        "account",
        root_id,
        "board",
    ]
    # And it reads the account's links but may not create one
    assert handlers["ManageFunction"](http_event("GET", "/links", headers=bearer(reader)))["statusCode"] == 200
    event = http_event("POST", "/links", headers=bearer(reader), body={"url": "https://example.com"})
    assert handlers["CreateFunction"](event)["statusCode"] == 403
    # A past expiry or an unknown account is refused, and nothing is written
    assert admin.main([*table, "create", "--name", "late", "--expires", "2020-01-01"]) == 1
    assert "expires_at: must be in the future" in capsys.readouterr().err
    assert admin.main([*table, "create", "--name", "lost", "--owner", "000000000000"]) == 1
    assert aws.item_count("ApiKeysTable") == 2


def test_an_operator_invites_the_first_owner_of_a_key_only_account(aws, capsys):
    from shortlink import wiring as services
    from shortlink.people.invitations import hash_token

    assert admin.main(["--table", "ApiKeysTable", "keys", "create", "--name", "root"]) == 0
    root_id = capsys.readouterr().out.split()[2]
    invite = ["--table", "ApiKeysTable", "people", "invite", "--workspace", root_id, "--console", "https://sho.rt/"]
    assert admin.main([*invite, "--email", "Ana@Example.com", "--role", "owner"]) == 0
    printed = capsys.readouterr().out
    link = printed.strip().splitlines()[-1]
    assert link.startswith("https://sho.rt/console/invitations/")
    found = services.invitations().find(hash_token(link.rsplit("/", 1)[1]), datetime.now(UTC))
    assert found is not None
    assert (found.workspace_id, found.email, found.role) == (root_id, "ana@example.com", "owner")
    # A workspace no key names, or an address that is none, invites nobody
    assert admin.main([*invite[:5], "nosuchkey", *invite[6:], "--email", "a@b.co", "--role", "owner"]) == 1
    assert admin.main([*invite, "--email", "not-an-address", "--role", "viewer"]) == 1
    assert [each.email for each in services.invitations().pending_for(root_id)] == ["ana@example.com"]
