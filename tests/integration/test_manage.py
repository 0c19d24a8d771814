"""Managing links: read, list (GSI, cursor, tag), edit, soft delete, restore; only one's own."""

import base64
import json
import struct
from datetime import UTC, datetime, timedelta

import pytest
import segno

from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tests.qr_decoding import decoded, logo_file

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest


def call(handlers, function, method, path, key, body=None, route=None, params=None, query=None):
    event = http_event(method, path, headers=bearer(key), body=body, route=route or path, path_parameters=params)
    if query:
        event["queryStringParameters"] = query
        event["rawQueryString"] = "&".join(f"{name}={value}" for name, value in query.items())
    response = handlers[function](event)
    body_text = response.get("body") or "null"
    return response["statusCode"], json.loads(body_text)


def manage(handlers, method, code, key, body=None, suffix=""):
    return call(
        handlers,
        "ManageFunction",
        method,
        f"/links/{code}{suffix}",
        key,
        body,
        route="/links/{code}" + suffix,
        params={"code": code},
    )


def list_links(handlers, key, **query):
    return call(handlers, "ManageFunction", "GET", "/links", key, query={k: str(v) for k, v in query.items()})


def test_a_key_reads_its_link_and_nobody_elses(aws, handlers, api):
    mine, other = aws.new_api_key("mine"), aws.new_api_key("other")
    link = api.new_link(mine, title="Mine", tags=["a"])
    status, read = manage(handlers, "GET", link["code"], mine)
    assert (status, read) == (200, link)
    assert manage(handlers, "GET", link["code"], other)[0] == 404
    assert manage(handlers, "GET", "nope", mine)[0] == 404


def test_delete_answers_410_and_restore_brings_it_back(aws, handlers, api):
    key = aws.new_api_key()
    link = api.new_link(key)
    assert manage(handlers, "DELETE", link["code"], aws.new_api_key("other"))[0] == 404
    with recording_aws_calls() as calls:
        assert manage(handlers, "DELETE", "x" * 5000, key)[0] == 404  # never a code: not even a write
    assert ("dynamodb", "UpdateItem") not in calls.counts()
    status, _ = manage(handlers, "DELETE", link["code"], key)
    assert status == 204
    assert api.follow(link["code"]).status == 410
    status, read = manage(handlers, "GET", link["code"], key)
    assert read["deleted_at"] is not None
    status, restored = manage(handlers, "POST", link["code"], key, suffix="/restore")
    assert (status, restored["deleted_at"]) == (200, None)
    # The redirect's cache may hold the deleted state for up to its TTL; a fresh environment sees it.
    from shortlink import wiring as services

    services.forget_cached_links()
    assert api.follow(link["code"]).status == 302


def test_patch_changes_only_what_it_names_and_null_clears(aws, handlers, api):
    key = aws.new_api_key()
    expires = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    link = api.new_link(key, title="Old", tags=["a"], expires_at=expires)
    status, edited = manage(
        handlers, "PATCH", link["code"], key, {"url": "https://example.com/new", "tags": ["b", "c"], "title": None}
    )
    assert status == 200, edited
    assert (edited["url"], edited["tags"], edited["title"]) == ("https://example.com/new", ["b", "c"], None)
    assert edited["expires_at"] == link["expires_at"]
    status, edited = manage(handlers, "PATCH", link["code"], key, {"expires_at": None, "redirect_type": 308})
    assert (edited["expires_at"], edited["redirect_type"]) == (None, 308)
    item = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": link["code"]}})["Item"]
    assert "expires_at_epoch" not in item  # no TTL once the expiry is gone


@pytest.mark.parametrize(
    ("body", "mentions"),
    [
        ({"url": "ftp://example.com"}, "absolute http or https"),
        ({"url": "https://sho.rt/loop"}, "redirect loop"),
        ({"redirect_type": 303}, "redirect_type"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, "expires_at must be in the future"),
        ({"valid_from": "2031-01-01T00:00:00Z", "expires_at": "2030-01-01T00:00:00Z"}, "after valid_from"),
        ({"url": None}, "url"),
        ({"expires_at": "9000-12-31T00:00:00Z"}, "within 100 years"),
        ({"code": "other"}, "code: unknown field"),
        ({"tags": ["bad tag"]}, "tags.0"),
        ({"valid_from": "0001-01-01T00:30:00+01:00"}, "valid_from: must be between"),
        ({"expires_at": "9999-12-31T23:30:00-01:00"}, "expires_at: must be between"),
        ({"max_clicks": True}, "max_clicks"),
        ({"max_clicks": "7"}, "max_clicks"),
        ({"redirect_type": 301.5}, "redirect_type"),
    ],
)
def test_a_bad_edit_is_refused_whole(aws, handlers, body, mentions, api):
    key = aws.new_api_key()
    link = api.new_link(key, title="Keep")
    status, refused = manage(handlers, "PATCH", link["code"], key, {"title": "Changed", **body})
    assert status == 422, refused
    assert mentions in refused["message"]
    assert manage(handlers, "GET", link["code"], key)[1] == link


def test_list_is_newest_first_paginated_and_filtered_by_tag(aws, handlers, api):
    key, other = aws.new_api_key("lister"), aws.new_api_key("other")
    made = [api.new_link(key, url=f"https://example.com/{i}", tags=["even" if i % 2 == 0 else "odd"]) for i in range(7)]
    api.new_link(other)
    status, page = list_links(handlers, key, limit=3)
    assert status == 200
    seen = [link["code"] for link in page["links"]]
    while page["next_cursor"]:
        page = list_links(handlers, key, limit=3, cursor=page["next_cursor"])[1]
        seen += [link["code"] for link in page["links"]]
    assert seen == [link["code"] for link in reversed(made)]
    status, evens = list_links(handlers, key, tag="even", limit=10)
    assert [link["code"] for link in evens["links"]] == [link["code"] for link in reversed(made[::2])]
    assert evens["next_cursor"] is None


def test_a_cursor_cannot_be_forged_or_borrowed(aws, handlers, api):
    key, other = aws.new_api_key("a"), aws.new_api_key("b")
    for i in range(3):
        api.new_link(key, url=f"https://example.com/{i}")
    cursor = list_links(handlers, key, limit=1)[1]["next_cursor"]
    assert list_links(handlers, other, cursor=cursor)[0] == 422
    assert list_links(handlers, key, cursor="not-a-cursor!")[0] == 422
    owner_only = base64.urlsafe_b64encode(json.dumps({"owner": {"S": "x"}}).encode()).decode()
    assert list_links(handlers, key, cursor=owner_only)[0] == 422
    assert list_links(handlers, key, limit=0)[0] == 422
    assert list_links(handlers, key, limit=101)[0] == 422


def test_the_qr_code_encodes_the_short_url_as_svg_or_png(aws, handlers, api):
    key = aws.new_api_key()
    link = api.new_link(key)
    event = http_event(
        "GET",
        f"/links/{link['code']}/qr",
        headers=bearer(key),
        route="/links/{code}/qr",
        path_parameters={"code": link["code"]},
    )
    svg = handlers["ManageFunction"](event)
    assert svg["statusCode"] == 200
    assert svg["headers"]["Content-Type"] == "image/svg+xml"
    assert decoded(svg["body"].encode(), "image/svg+xml") == [link["short_url"]]  # not the destination

    event["queryStringParameters"] = {"format": "png", "scale": "4"}
    event["rawQueryString"] = "format=png&scale=4"
    png = handlers["ManageFunction"](event)
    assert png["statusCode"] == 200
    assert png["headers"]["Content-Type"] == "image/png"
    assert png["isBase64Encoded"] is True
    data = base64.b64decode(png["body"])
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    modules = segno.make(link["short_url"], error="m").symbol_size(scale=4, border=4)
    assert (width, height) == modules
    assert decoded(data, "image/png") == [link["short_url"]]

    event["queryStringParameters"] = {"format": "gif"}
    event["rawQueryString"] = "format=gif"
    assert handlers["ManageFunction"](event)["statusCode"] == 422
    other = {**event, "headers": {**event["headers"], **bearer(aws.new_api_key("other"))}}
    other["queryStringParameters"] = None
    other["rawQueryString"] = ""
    assert handlers["ManageFunction"](other)["statusCode"] == 404


def qr_code(handlers, key, code, image_format):
    query = {"format": image_format}
    path, route = f"/links/{code}/qr", "/links/{code}/qr"
    event = http_event("GET", path, headers=bearer(key), route=route, path_parameters={"code": code}, query=query)
    answer = handlers["ManageFunction"](event)
    assert answer["statusCode"] == 200, answer["body"]
    body = answer["body"]
    return base64.b64decode(body) if answer.get("isBase64Encoded") else body.encode()


def test_a_saved_qr_style_draws_the_links_code_and_the_workspaces_default_the_others(aws, handlers, api):
    key = aws.new_api_key()
    styled, plain = api.new_link(key), api.new_link(key)
    logo = base64.b64encode(logo_file()).decode()
    # Given a workspace default (navy on cream) and one link's own style with a logo
    default = {"dark": "#1a237e", "light": "#fff8e1", "margin": 2}
    assert call(handlers, "ManageFunction", "PUT", "/links/qr-style", key, default)[0] == 200
    # (a workspace setting: audited as the console's form is, naming it, never its value)
    entries = call(handlers, "KeysFunction", "GET", "/audit", key)[1]["entries"]
    assert [(e["action"], e["target"]["id"]) for e in entries if e["action"] == "setting.changed"] == [
        ("setting.changed", "qr_style")
    ]
    own = {"dark": "#000000", "light": "#ffffff", "margin": 3, "logo": logo}
    status, saved = manage(handlers, "PUT", styled["code"], key, own, suffix="/qr-style")
    assert (status, saved["error_correction"], saved["logo"], saved["source"]) == (200, "H", True, "link")
    # Then each code follows its style, and every one still decodes to its short URL
    assert manage(handlers, "GET", plain["code"], key, suffix="/qr-style")[1]["source"] == "workspace"
    for link in (styled, plain):
        for image_format, media_type in (("svg", "image/svg+xml"), ("png", "image/png")):
            assert decoded(qr_code(handlers, key, link["code"], image_format), media_type) == [link["short_url"]]
    assert b"#fff8e1" in qr_code(handlers, key, plain["code"], "svg")
    assert b"data:image/png;base64," in qr_code(handlers, key, styled["code"], "svg")
    # When the link's own style is dropped, it follows the default again
    assert manage(handlers, "DELETE", styled["code"], key, suffix="/qr-style")[0] == 204
    assert manage(handlers, "GET", styled["code"], key, suffix="/qr-style")[1]["source"] == "workspace"
    # Another workspace's key neither reads nor styles it
    other = aws.new_api_key("other")
    assert manage(handlers, "PUT", styled["code"], other, own, suffix="/qr-style")[0] == 404


@pytest.mark.parametrize(
    ("body", "mentions"),
    [
        ({"dark": "#777777", "light": "#999999"}, "under the 4.5:1"),
        ({"logo": "not base64!"}, "base64"),
        ({"logo": "\u00acø\U0002336a|"}, "base64"),  # outside ASCII: the fuzzer's 500
        ({"logo": base64.b64encode(bytes(70_000)).decode()}, "logo"),
    ],
)
def test_a_qr_style_that_would_not_scan_is_refused_with_422_naming_the_rule(aws, handlers, api, body, mentions):
    key = aws.new_api_key()
    link = api.new_link(key)
    status, answer = manage(handlers, "PUT", link["code"], key, body, suffix="/qr-style")
    assert status == 422
    assert mentions in answer["message"]
    assert manage(handlers, "GET", link["code"], key, suffix="/qr-style")[1]["source"] == "default"  # nothing saved


def edit_raw(handlers, key, code, body, content_type):
    event = http_event(
        "PATCH", f"/links/{code}", route="/links/{code}", path_parameters={"code": code}, headers=bearer(key)
    )
    event["body"] = body
    if content_type is not None:
        event["headers"]["content-type"] = content_type
    response = handlers["ManageFunction"](event)
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize(
    ("body", "content_type", "status", "mentions"),
    [
        ('[{"title": "Changed"}]', "application/json", 422, "JSON object"),
        ('{"title": "Changed"}', "multipart/form-data", 415, "application/json"),
        ('{"title": "Changed"}', None, 415, "application/json"),
        ('{"title": "Changed"}', "APPLICATION/JSON", 200, None),
    ],
)
def test_an_edit_body_is_strict_json_sent_as_json(aws, handlers, body, content_type, status, mentions, api):
    key = aws.new_api_key()
    link = api.new_link(key, title="Keep")
    code, answer = edit_raw(handlers, key, link["code"], body, content_type)
    assert code == status, answer
    if mentions is not None:
        assert mentions in answer["message"]
        assert manage(handlers, "GET", link["code"], key)[1] == link
    assert edit_raw(handlers, "sl_nope", link["code"], body, content_type)[0] == 401


def link_stats(handlers, key, code, query):
    path = f"/links/{code}/stats"
    return call(
        handlers, "ManageFunction", "GET", path, key, route="/links/{code}/stats", params={"code": code}, query=query
    )


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"to": "0001-01-01T00:00:00Z"}, "to"),
        ({"from": "9999-12-31T23:30:00-01:00"}, "from"),
        ({"from": "0001-01-01T00:30:00+01:00"}, "from"),
        ({"from": "1969-12-01T00:00:00Z", "to": "1970-01-02T00:00:00Z"}, "from"),
    ],
)
def test_stats_moments_at_the_edge_of_the_range_are_422_naming_the_parameter(aws, handlers, query, field, api):
    key = aws.new_api_key()
    link = api.new_link(key)
    status, refused = link_stats(handlers, key, link["code"], query)
    assert status == 422, refused
    assert refused["message"].startswith(f"{field}: must be between"), refused


@pytest.mark.parametrize("unix_time", ["0.5", "1700000000", "-1e3"])
def test_stats_moments_are_iso_text_not_unix_times(aws, handlers, unix_time, api):
    key = aws.new_api_key()
    link = api.new_link(key)
    status, refused = link_stats(handlers, key, link["code"], {"to": unix_time})
    assert status == 422, refused
    assert refused["message"] == "to: must be an ISO 8601 date-time string with a time zone"


def test_the_earliest_stats_range_prints_four_digit_years(aws, handlers, api):
    key = aws.new_api_key()
    link = api.new_link(key)
    status, report = link_stats(
        handlers, key, link["code"], {"from": "1970-01-01T00:00:00Z", "to": "1970-01-02T00:00:00Z"}
    )
    assert status == 200, report
    assert (report["from"], report["to"]) == ("1970-01-01T00:00:00Z", "1970-01-02T00:00:00Z")


@pytest.mark.parametrize(("raw", "mentions"), [(b'{"title": "\xff"}', "UTF-8"), (None, "base64")])
def test_an_edit_body_api_gateway_encoded_must_decode(aws, handlers, raw, mentions, api):
    # Item 10: a body API Gateway base64-encoded, that is not UTF-8, or not base64 at all.
    key = aws.new_api_key()
    link = api.new_link(key, title="Keep")
    event = http_event(
        "PATCH",
        f"/links/{link['code']}",
        route="/links/{code}",
        path_parameters={"code": link["code"]},
        headers=bearer(key),
    )
    event["headers"]["content-type"] = "application/json"
    event["body"] = base64.b64encode(raw).decode() if raw is not None else "{not base64}"
    event["isBase64Encoded"] = True
    response = handlers["ManageFunction"](event)
    assert response["statusCode"] == 422
    assert mentions in json.loads(response["body"])["message"]
    assert manage(handlers, "GET", link["code"], key)[1] == link
