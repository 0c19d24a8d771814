"""What an export gives away: every CSV cell is safe to open in a spreadsheet (titles and tags
are anyone's words, an import's too), password hashes only to an admin key that asks, click
counts only to a key with stats:read."""

import csv
import io
import json
from datetime import UTC, datetime

import pytest

from shortlink.access.api_keys import ADMIN, LINKS_READ, LINKS_WRITE, STATS_READ, issue_api_key
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests.events import bearer, http_event

pytestmark = pytest.mark.one_account_per_module

# A tab or CR at a title's start is stripped by the import: tests/unit/test_stats.py has those.
FORMULAS = ['=HYPERLINK("https://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)"]


def call(handlers, key, method, path, **options):
    event = http_event(method, path, headers={**bearer(key), **options.pop("headers", {})}, **options)
    function = "CreateFunction" if method == "POST" and path == "/links" else "TransferFunction"
    answer = handlers[function](event)
    return answer["statusCode"], answer["body"]


def key_with(*scopes, owner):
    store = DynamoApiKeyStore(resources().api_keys_table.value)
    return issue_api_key(store, "scoped", frozenset(scopes), None, datetime.now(UTC), owner)[1]


def test_csv_cells_that_would_start_a_formula_are_quoted_from_the_api_and_from_a_bitly_import(aws, handlers):
    key = aws.new_api_key()
    # Given links whose titles start a formula, one created, the others brought in by a Bitly import
    status, body = call(
        handlers,
        key,
        "POST",
        "/links",
        body={"url": "https://example.com/a", "title": FORMULAS[0], "tags": ["-1", "x"]},
    )
    assert status == 201, body
    rows = ["created_at,link,custom_bitlink,long_url,title,tags"]
    rows += [
        f'2024-05-02 10:11:12,https://bit.ly/b{n},,https://example.com/{n},"{title}",news'
        for n, title in enumerate(title.replace('"', '""') for title in FORMULAS[1:])
    ]
    status, body = call(
        handlers, key, "POST", "/links/import", body="\r\n".join(rows), query={"format": "bitly"},
        headers={"content-type": "text/csv"},
    )  # fmt: skip
    assert (status, json.loads(body)["created"]) == (200, 3), body
    # When the links are exported as CSV
    status, body = call(handlers, key, "GET", "/links/export", query={"format": "csv"})
    assert status == 200
    exported = list(csv.DictReader(io.StringIO(body, newline="")))
    # Then every such title and tag cell starts with a quote, and no cell starts a formula
    assert sorted(row["title"] for row in exported) == sorted(f"'{title}" for title in FORMULAS)
    assert {row["tags"] for row in exported} == {"news", "'-1|x"}
    for row in exported:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values()), row


def test_password_hashes_leave_only_with_an_admin_key_that_asks_and_clicks_only_with_stats_read(aws, handlers):
    admin = aws.new_api_key()
    status, body = call(
        handlers, admin, "POST", "/links", body={"url": "https://example.com/locked", "password": "correct horse"}
    )
    assert status == 201, body
    owner = DynamoApiKeyStore(resources().api_keys_table.value).list_keys()[0].owner
    reader = key_with(LINKS_READ, owner=owner)
    # A links:read key's JSON export says a link has a password, never its hash
    status, body = call(handlers, reader, "GET", "/links/export", query={"format": "json"})
    assert status == 200
    (link,) = json.loads(body)["links"]
    assert (link["has_password"], "password_hash" in link) == (True, False)
    assert "pbkdf2" not in body
    # Asking for the hashes needs admin; the CSV export never carries them
    for key, query, expected in [
        (reader, {"format": "json", "include": "password_hash"}, (403, ADMIN)),
        (reader, {"format": "stats-csv"}, (403, STATS_READ)),
        (key_with(LINKS_READ, LINKS_WRITE, owner=owner), {"format": "stats-csv"}, (403, STATS_READ)),
    ]:
        status, body = call(handlers, key, "GET", "/links/export", query=query)
        assert (status, json.loads(body).get("scope")) == expected, body
    status, body = call(handlers, admin, "GET", "/links/export", query={"format": "csv", "include": "password_hash"})
    assert (status, json.loads(body)["message"]) == (422, "include: password_hash is exported with format=json only")
    status, body = call(handlers, admin, "GET", "/links/export", query={"format": "json", "include": "password_hash"})
    assert status == 200
    assert json.loads(body)["links"][0]["password_hash"].startswith("pbkdf2_sha256$")
    counter = key_with(LINKS_READ, STATS_READ, owner=owner)
    assert call(handlers, counter, "GET", "/links/export", query={"format": "stats-csv"})[0] == 200
