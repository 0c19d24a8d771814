"""POST /links/import against moto with hostile files: each bad record fails with an error naming
its field and nothing of it is stored; the links made unlock and redirect (issue 28 items 2-4, 7)."""

import json
import secrets
import time
from typing import Any
from urllib.parse import urlencode

import pytest

from shortlink.access.passwords import MAX_ITERATIONS, hash_password
from shortlink.wiring import resources
from tests.events import http_event
from tests.integration.test_import_export import import_file

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest


def stored_links(aws) -> int:
    pages = aws.dynamodb.get_paginator("scan").paginate(
        TableName=resources().links_table.value,
        Select="COUNT",
        FilterExpression="attribute_exists(#url)",
        ExpressionAttributeNames={"#url": "url"},
    )
    return sum(int(page["Count"]) for page in pages)


def unlock(handlers, code: str, password: str) -> dict[str, Any]:
    event = http_event(
        "POST",
        f"/{code}",
        route="/{code}",
        path_parameters={"code": code},
        headers={"content-type": "application/x-www-form-urlencoded"},
        body=urlencode({"password": password}),
    )
    answer: dict[str, Any] = handlers["RedirectFunction"](event)
    return answer


@pytest.mark.parametrize(
    "expire_in", ["1e20", "NaN", "Infinity", "-Infinity", "253402300800000", "-62135596800001", "1" + "0" * 400]
)
def test_a_kutt_expiry_out_of_range_fails_its_record(aws, handlers, expire_in):
    key = aws.new_api_key()
    entry = '{"target": "https://example.com/k", "address": "kutt-1", "expire_in": ' + expire_in + "}"
    text = '{"data": [' + entry + "]}"  # JSON as Kutt (or an attacker) writes it: NaN, Infinity, 1e20
    status, report = import_file(handlers, key, text, "kutt", "application/json")
    assert status == 200, report
    (result,) = report["results"]
    assert (result["status"], result["error"]) == ("failed", "invalid_request")
    assert result["message"].startswith("expire_in: ")
    assert stored_links(aws) == 0


@pytest.mark.parametrize("column", ["redirect_type", "max_clicks"])
@pytest.mark.parametrize("text", ["\u0663", "\u00b2", "\u2462", "\u2460", "1e3", "-1", "\uff13"])
def test_a_csv_number_in_other_digits_fails_its_record_naming_the_column(aws, handlers, column, text):
    key = aws.new_api_key()
    status, report = import_file(handlers, key, f"url,{column}\nhttps://example.com/n,{text}\n")
    assert status == 200, report
    (result,) = report["results"]
    assert result["status"] == "failed"
    assert result["message"] == f"{column}: must be a whole number in the digits 0-9"
    assert stored_links(aws) == 0


def test_password_hashes_that_are_not_ours_fail_their_record_and_the_rest_unlock(aws, handlers):
    key = aws.new_api_key()
    good = hash_password("open sesame", iterations=1_000)
    _, iterations, salt, digest = good.split("$")
    bad = {
        "17-character salt": f"pbkdf2_sha256${iterations}${salt[:17]}${digest}",
        "salt not base64": f"pbkdf2_sha256${iterations}$!!!!{salt[4:]}${digest}",
        "short digest": f"pbkdf2_sha256${iterations}${salt}${digest[:20]}",
        "six million iterations": f"pbkdf2_sha256$6000000${salt}${digest}",
        "Arabic-Indic iterations": f"pbkdf2_sha256$\u0661\u0660\u0660\u0660${salt}${digest}",
    }
    links = [{"url": f"https://example.com/{n}", "password_hash": text} for n, text in enumerate(bad.values())]
    links.append({"url": "https://example.com/good", "password_hash": good})
    status, report = import_file(handlers, key, json.dumps({"links": links}), "json", "application/json")
    assert status == 200, report
    failed = [result for result in report["results"] if result["status"] == "failed"]
    assert len(failed) == len(bad), report
    assert all(result["message"].startswith("password_hash: ") for result in failed), failed
    assert stored_links(aws) == 1
    code = report["results"][-1]["code"]
    assert unlock(handlers, code, "wrong password")["statusCode"] == 403
    answer = unlock(handlers, code, "open sesame")
    assert (answer["statusCode"], answer["headers"]["Location"]) == (303, "https://example.com/good")


def test_a_hash_at_the_iteration_bound_is_imported_and_unlocks_within_seconds(aws, handlers):
    key = aws.new_api_key()
    stored = hash_password("open sesame", iterations=MAX_ITERATIONS)
    body = json.dumps([{"url": "https://example.com/bound", "password_hash": stored}])
    status, report = import_file(handlers, key, body, "json", "application/json")
    assert (status, report["created"]) == (200, 1), report
    started = time.perf_counter()
    assert unlock(handlers, report["results"][0]["code"], "open sesame")["statusCode"] == 303
    assert time.perf_counter() - started < 5  # the redirect's timeout is 10 s


def test_a_private_link_keeps_a_drawn_code_and_never_a_chosen_one(aws, handlers):
    key = aws.new_api_key()
    drawn = secrets.token_urlsafe(16)
    links = [
        {"url": "https://example.com/p1", "private": True, "slug": "A" * 22},
        {"url": "https://example.com/p2", "private": True, "slug": "my-private-link-2026ab"},
        {"url": "https://example.com/p3", "private": True, "slug": drawn},
        {"url": "https://example.com/p4", "private": True},
    ]
    status, report = import_file(handlers, key, json.dumps(links), "json", "application/json")
    assert status == 200, report
    chosen, guessable, restored, fresh = report["results"]
    for refused in (chosen, guessable):
        assert refused["status"] == "failed"
        assert refused["message"].startswith("slug: a private link's code must be one a create drew"), refused
    assert (restored["status"], restored["code"]) == ("created", drawn)
    assert fresh["status"] == "created"
    assert len(fresh["code"]) == 22
    assert stored_links(aws) == 2


def test_a_yourls_dumps_commented_out_inserts_are_not_imported(aws, handlers):
    key = aws.new_api_key()
    insert = "INSERT INTO `yourls_url` (`keyword`, `url`) VALUES ('{0}','https://example.com/{0}');"
    dump = "\n".join(
        [
            "-- " + insert.format("dashed"),
            "# " + insert.format("hashed"),
            "/* " + insert.format("blocked") + " */",
            insert.format("real"),
        ]
    )
    status, report = import_file(handlers, key, dump, "yourls", "application/sql")
    assert status == 200, report
    assert [result["code"] for result in report["results"]] == ["real"]


def test_a_mib_of_yourls_dump_is_refused_while_reading(aws, handlers):
    key = aws.new_api_key()
    rows = ",".join(
        f"('c{n}','https://example.com/{n}','t','2023-01-01 00:00:00','192.0.2.1',0)" for n in range(12_000)
    )
    dump = "INSERT INTO `yourls_url` VALUES " + rows + ";"  # noqa: S608 - a file's text, never run
    assert len(dump) > 900_000
    started = time.perf_counter()
    status, report = import_file(handlers, key, dump[: 1024 * 1024 - 10], "yourls", "application/sql")
    assert (status, report["error"]) == (413, "body_too_large"), report
    assert time.perf_counter() - started < 3
