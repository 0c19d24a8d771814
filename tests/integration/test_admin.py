"""The admin command manages keys that the API then accepts or refuses."""

import json

from tests.events import bearer, http_event
from tools import admin


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
