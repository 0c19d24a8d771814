"""POST /links/import and GET /links/export against moto: each record a link or an error of its
own, re-runs create nothing twice, limits refuse whole files, and an export imports back into an
empty stack unchanged."""

import csv
import io
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from shortlink import wiring as services
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.clicks.stats import BOT_COLUMNS
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tests.integration.ingest_faults import record
from tools.developers.devstack.resources import create_tables

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "import"


def import_file(handlers, key, body, file_format="auto", content_type="text/csv"):
    event = http_event(
        "POST",
        "/links/import",
        headers={**bearer(key), "content-type": content_type},
        body=body,
        query={"format": file_format},
    )
    response = handlers["TransferFunction"](event)
    return response["statusCode"], json.loads(response["body"])


def export(handlers, key, export_format="json", **query):
    event = http_event("GET", "/links/export", headers=bearer(key), query={"format": export_format, **query})
    response = handlers["TransferFunction"](event)
    assert response["statusCode"] == 200, response["body"]
    return response["body"], response["headers"]["Content-Type"]


def statuses(report):
    return [(result["line"], result["status"], result.get("error")) for result in report["results"]]


def test_an_import_run_twice_creates_each_link_once(aws, handlers):
    # Given our CSV: two good links (one without a slug), a non-web URL, an expiry in the past
    key = aws.new_api_key()
    body = (SAMPLES / "links.csv").read_text()
    with recording_aws_calls() as calls:
        status, report = import_file(handlers, key, body)
    assert status == 200, report
    # Each new link is one transaction with its claim (a slug's, or the record's import key) and
    # its audit entry
    assert calls.counts()[("dynamodb", "TransactWriteItems")] == 2
    assert calls.counts().get(("dynamodb", "PutItem"), 0) == 0  # the links' audit entries are in them
    assert statuses(report) == [
        (2, "created", None),
        (3, "created", None),
        (4, "failed", "invalid_url"),
        (5, "failed", "invalid_request"),
    ]
    assert (report["created"], report["skipped"], report["failed"]) == (2, 0, 2)
    assert report["results"][0]["code"] == "spring-2027"
    assert report["results"][3]["message"] == "expires_at must be in the future"
    # Two links, the slug's claim and the imported record's claim
    assert aws.item_count("LinksTable") == 4

    # When the same file is imported again: nothing is written
    with recording_aws_calls() as calls:
        status, again = import_file(handlers, key, body)
    assert statuses(again) == [
        (2, "skipped", None),
        (3, "skipped", None),
        (4, "failed", "invalid_url"),
        (5, "failed", "invalid_request"),
    ]
    assert again["results"][0]["message"] == "this key has a link with this code and destination already"
    assert again["results"][1]["message"] == "imported before (the same link without a code)"
    assert [result.get("code") for result in again["results"][:2]] == [
        result["code"] for result in report["results"][:2]
    ]
    assert aws.item_count("LinksTable") == 4
    writes = {call: n for call, n in calls.counts().items() if call[1] in ("PutItem", "TransactWriteItems")}
    assert writes == {}
    # The link is the one the first run made, with its fields
    link = json.loads(export(handlers, key)[0])["links"]
    spring = next(item for item in link if item["code"] == "spring-2027")
    assert (spring["title"], spring["tags"], spring["expires_at"]) == (
        "Spring, the sale",
        ["promo", "spring"],
        "2099-03-01T00:00:00Z",
    )


def test_a_slug_is_skipped_only_for_its_owner_and_destination(aws, handlers):
    owner, other = aws.new_api_key(), aws.new_api_key("other")
    first = "url,slug\nhttps://example.com/mine,mine\n"
    assert import_file(handlers, owner, first)[1]["created"] == 1
    # Another key, or another destination: taken; a look-alike spelling is taken too
    _, theirs = import_file(handlers, other, first)
    _, moved = import_file(
        handlers, owner, "url,slug\nhttps://example.com/elsewhere,mine\nhttps://example.com/x,M1NE\n"
    )
    assert statuses(theirs) == [(2, "failed", "slug_taken")]
    assert statuses(moved) == [(2, "failed", "slug_taken"), (3, "failed", "slug_taken")]
    assert moved["results"][0]["message"] == "slug mine (or one that reads the same) is taken"
    assert aws.item_count("LinksTable") == 2


def test_each_record_fails_on_its_own_with_the_field_named(aws, handlers):
    key = aws.new_api_key()
    body = json.dumps(
        {
            "links": [
                {"url": "https://example.com/ok"},
                {"url": "https://example.com/1", "max_clicks": "7"},
                {"url": "https://example.com/2", "colour": "red"},
                {"url": "https://example.com/3", "password_hash": "secret"},
                {"url": "https://example.com/4", "slug": "links"},
                "not an object",
                {"url": "https://example.com/5", "private": True, "slug": "short"},
                {"url": "https://example.com/6", "slug": "~slug~spring"},  # a claim's key: never read as a link
            ]
        }
    )
    status, report = import_file(handlers, key, body, "json", "application/json")
    assert status == 200
    assert [result["status"] for result in report["results"]] == ["created"] + ["failed"] * 7
    messages = [result["message"] for result in report["results"][1:]]
    assert messages[0].startswith("max_clicks: ")
    assert messages[1] == "colour: unknown field"
    assert messages[2].startswith("password_hash: must be a password hash")
    assert messages[3] == "slug 'links' is reserved"
    assert messages[4] == "url: field required"
    assert messages[5] == "a private link gets a random code: leave out slug"
    assert messages[6] == "slug must be 1-64 characters of letters, digits, '_' and '-'"
    assert aws.item_count("LinksTable") == 2


FORMAT_SAMPLES = {
    "bitly.csv": (["4aXyZ01", "summer-promo", "4cLmN03"], 0),
    "yourls.sql": (["yt-1", "docs-2"], 1),
    "yourls.csv": (["yc-1", "yc-2"], 0),
    "shlink.csv": (["sh-one", "sh-two"], 0),
    "kutt.json": (["kt-one", "kt-two"], 0),
}


def test_every_format_keeps_its_codes(aws, handlers):
    key = aws.new_api_key()
    for sample, (created, failed) in FORMAT_SAMPLES.items():
        media_type = {".json": "application/json", ".sql": "application/sql"}.get(Path(sample).suffix, "text/csv")
        status, report = import_file(handlers, key, (SAMPLES / sample).read_text(), content_type=media_type)
        assert status == 200, report
        assert [result["code"] for result in report["results"] if result["status"] == "created"] == created, sample
        assert report["failed"] == failed, sample
    yourls = services.link_repository().get("yt-1")
    assert yourls is not None
    assert yourls.title == "It's a video"
    # The links and their slugs' claims
    assert aws.item_count("LinksTable") == 2 * 11


def test_files_over_the_limits_are_refused_whole(aws, handlers):
    key = aws.new_api_key()
    rows = "".join(f"https://example.com/{n}\n" for n in range(501))
    status, answer = import_file(handlers, key, "url\n" + rows)
    assert (status, answer["error"]) == (413, "body_too_large")
    assert "at most 500 links (this file holds more)" in answer["message"]
    status, answer = import_file(handlers, key, "url,title\nhttps://example.com/x," + "x" * (1024 * 1024) + "\n")
    assert (status, answer["message"]) == (413, "request body must be at most 1048576 bytes")
    for body, message in (
        ("url\n", "the file holds no links"),
        ("hello\n", "the format is not recognised"),
    ):
        status, answer = import_file(handlers, key, body)
        assert status == 422
        assert answer["message"].startswith(message)
    assert aws.item_count("LinksTable") == 0


def test_the_create_allowance_applies_to_every_new_link(aws, handlers, monkeypatch):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "2")
    services.reset()
    if datetime.now(UTC).second > 55:  # the four imports below share one minute
        pytest.skip("too close to the next minute")
    key = aws.new_api_key()
    body = "url\n" + "".join(f"https://example.com/{n}\n" for n in range(4))
    _, report = import_file(handlers, key, body)
    assert [result.get("error") for result in report["results"]] == [None, None, "rate_limited", "rate_limited"]
    # A re-run skips what exists (no allowance taken) and is still refused the rest this minute
    _, again = import_file(handlers, key, body)
    assert [result["status"] for result in again["results"]] == ["skipped", "skipped", "failed", "failed"]
    assert aws.item_count("LinksTable") == 4  # two links, two claims


def test_the_stats_export_has_a_row_per_link_and_day_with_clicks(aws, handlers):
    key = aws.new_api_key()
    _, report = import_file(handlers, key, "url,slug\nhttps://example.com/a,day-a\nhttps://example.com/b,day-b\n")
    assert report["created"] == 2
    now = datetime.now(UTC)
    clicks = tuple(ClickEvent(uuid.uuid4().hex, "day-a", now, visitor=uuid.uuid4().hex) for _ in range(3))
    again = ClickEvent(uuid.uuid4().hex, "day-a", now, visitor=clicks[0].visitor, repeat=True)
    pack = ClickPack(uuid.uuid4().hex, (*clicks, again))
    assert handlers["IngestFunction"]({"Records": [record("m-1", pack.to_json())]}, None) == {"batchItemFailures": []}
    body, media_type = export(handlers, key, "stats-csv")
    assert media_type == "text/csv; charset=utf-8"
    assert list(csv.reader(io.StringIO(body))) == [
        ["code", "day", "clicks", "bots", "unique_visitors", "domain", "repeat_clicks", "people", *BOT_COLUMNS],
        # a stack without Domains: no domain; every click a person's
        ["day-a", now.strftime("%Y-%m-%d"), "4", "0", "3", "", "1", "4", *["0"] * len(BOT_COLUMNS)],
    ]


def every_option_links(handlers, key):
    """Links with each option a create takes, one deleted: their codes."""
    bodies = [
        {"url": "https://example.com/plain"},
        {
            "url": "https://example.com/all",
            "slug": "all-options",
            "valid_from": "2026-01-01T00:00:00Z",
            "expires_at": "2099-01-01T00:00:00Z",
            "redirect_type": 308,
            "tags": ["a", "b"],
            "title": 'Everything, "quoted"',
            "max_clicks": 50,
            "password": "launch-2026",
            "rules": {
                "deny": {"devices": ["bot"]},
                "routes": [
                    {
                        "split": [
                            {"url": "https://example.com/x", "weight": 3},
                            {"url": "https://example.com/y", "weight": 1},
                        ]
                    }
                ],
            },
        },
        {"url": "https://example.com/private", "private": True},
        {"url": "https://example.com/deleted", "slug": "deleted-one"},
    ]
    codes = []
    for body in bodies:
        response = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body))
        assert response["statusCode"] == 201, response["body"]
        codes.append(json.loads(response["body"])["code"])
    deleted = http_event(
        "DELETE",
        "/links/deleted-one",
        route="/links/{code}",
        path_parameters={"code": "deleted-one"},
        headers=bearer(key),
    )
    assert handlers["ManageFunction"](deleted)["statusCode"] == 204
    return codes


def without_creation_times(document):
    return [{name: value for name, value in link.items() if name != "created_at"} for link in document["links"]]


def test_an_export_imports_back_into_an_empty_stack_unchanged(aws, handlers, template):
    # Given links with every option, exported as JSON with the passwords' hashes
    key = aws.new_api_key()
    codes = every_option_links(handlers, key)
    exported, _ = export(handlers, key, include="password_hash")
    before = json.loads(exported)
    assert sorted(link["code"] for link in before["links"]) == sorted(codes)
    assert next(link for link in before["links"] if link["code"] == "all-options")["password_hash"].startswith(
        "pbkdf2_sha256$"
    )

    # When every table is emptied (a fresh stack) and a new key imports the export
    for table in aws.dynamodb.list_tables()["TableNames"]:
        aws.dynamodb.delete_table(TableName=table)
    create_tables(template, aws.dynamodb)
    services.reset()
    fresh = aws.new_api_key("fresh")
    status, report = import_file(handlers, fresh, exported, "json", "application/json")
    assert (status, report["created"], report["failed"]) == (200, 4, 0), report

    # Then its export is the first one but for creation times
    after = json.loads(export(handlers, fresh, include="password_hash")[0])
    key_of = lambda link: link["code"]  # noqa: E731
    assert sorted(without_creation_times(after), key=key_of) == sorted(without_creation_times(before), key=key_of)
    # And the CSV export says the same, the password only as has_password
    rows = list(csv.DictReader(io.StringIO(export(handlers, fresh, "csv")[0])))
    assert {row["code"]: row["has_password"] for row in rows}["all-options"] == "true"
    assert "password_hash" not in rows[0]
