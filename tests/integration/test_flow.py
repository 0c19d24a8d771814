"""Create → redirect → queue → ingest → stats, through the real handlers against moto."""

import json
from datetime import UTC, datetime, timedelta

from shortlink import wiring as services
from shortlink.clicks.events import ClickPack
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tools.developers.devstack.sqs_trigger import sqs_event

PAGE = "https://example.com/page"


def stats_response(handlers, key, code, **query):
    return handlers["ManageFunction"](
        http_event(
            "GET",
            f"/links/{code}/stats",
            route="/links/{code}/stats",
            path_parameters={"code": code},
            headers=bearer(key),
            query=query,
        ),
        None,
    )


def stats(handlers, key, code, **query):
    response = stats_response(handlers, key, code, **query)
    return response["statusCode"], json.loads(response["body"])


def drain_clicks(aws, handlers):
    queue = aws.queue_urls["ClicksQueue"]
    messages = aws.sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])
    if messages:
        result = handlers["IngestFunction"](
            sqs_event(messages, "arn:aws:sqs:us-east-1:123456789012:ClicksQueue", "us-east-1"), None
        )
        assert result == {"batchItemFailures": []}
    return len(messages)


def test_a_link_is_created_followed_and_counted(aws, handlers, api):
    key = aws.new_api_key()
    # Given a new link
    body = api.new_link(key, url=PAGE)
    assert set(body) == {
        *("code", "short_url", "url", "created_at", "valid_from", "expires_at"),
        *("redirect_type", "tags", "title", "private", "deleted_at", "max_clicks", "has_password", "rules"),
        *("forward_query", "expired_url", "crawlable", "preview", "utm"),
        "domain",
    }
    assert (body["redirect_type"], body["tags"], body["private"], body["domain"]) == (302, [], False, None)
    assert body["short_url"] == f"https://sho.rt/{body['code']}"
    assert body["url"] == "https://example.com/page"
    # When it is followed twice
    for _ in range(2):
        redirect = api.follow(body["code"])
        assert redirect.status == 302
        assert redirect.headers["location"] == PAGE
    # Then two clicks were queued, and once ingested the stats show them
    assert drain_clicks(aws, handlers) == 2
    status, report = stats(handlers, key, body["code"])
    assert status == 200
    assert (report["code"], report["clicks"], report["bots"], report["unique_visitors"]) == (body["code"], 2, 0, 1)
    assert report["top"]["country"] == [{"value": "XX", "clicks": 2}]  # no edge: the country is unknown
    assert report["series"][-1]["clicks"] == 2  # today
    assert report["granularity"] == "day"


def test_stats_by_hour_as_csv_and_invalid_ranges(aws, handlers, api):
    key = aws.new_api_key()
    body = api.new_link(key, url=PAGE)
    api.follow(body["code"], headers={"user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)"})
    api.follow(body["code"])
    drain_clicks(aws, handlers)
    now = datetime.now(UTC)
    window = {"from": (now - timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M:%SZ"), "granularity": "hour"}
    status, report = stats(handlers, key, body["code"], **window)
    assert (status, report["clicks"], report["bots"], report["people"]) == (200, 2, 1, 1)
    # the crawler is counted under its class, from the redirect through ingest to the stats
    assert (report["agents"]["person"], report["agents"]["crawler"], sum(report["agents"].values())) == (1, 1, 2)
    assert len(report["series"]) == 6
    assert {"value": "bot", "clicks": 1} in report["top"]["device"]
    answer = stats_response(handlers, key, body["code"], format="csv", **window)
    assert answer["headers"]["Content-Type"].startswith("text/csv")
    lines = answer["body"].splitlines()
    assert lines[0].startswith("start,clicks,bots,unique_visitors,repeat_clicks,people,crawler,")
    # an hourly row leaves the classes empty: they are counted per day
    assert lines[-1].split(",")[1:7] == ["2", "1", "1", "0", "1", ""]
    for query, field in (
        (
            {
                "from": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "to": (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
            "from",
        ),
        ({"from": (now - timedelta(days=40)).strftime("%Y-%m-%dT%H:%M:%SZ"), "granularity": "hour"}, "to"),
        ({"granularity": "minute"}, "granularity"),
        ({"from": "yesterday"}, "from"),
    ):
        status, refused = stats(handlers, key, body["code"], **query)
        assert status == 422, query
        assert field in refused["message"], refused


def test_stats_of_another_keys_link_or_an_unknown_code_are_not_found(aws, handlers, api):
    owner, stranger = aws.new_api_key("owner"), aws.new_api_key("stranger")
    body = api.new_link(owner, url=PAGE)
    assert stats(handlers, stranger, body["code"])[0] == 404
    assert stats(handlers, owner, "zzzzzzz")[0] == 404
    # A code longer than DynamoDB's key limit is a 404 too, never a storage error
    assert stats(handlers, owner, "x" * 5000)[0] == 404


def test_unknown_code_is_a_small_html_404_and_queues_an_orphan_visit_but_no_click(aws, api):
    response = api.follow("nope123")
    assert response.status == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "not found" in response.text.lower()
    [message] = aws.sqs.receive_message(QueueUrl=aws.queue_urls["ClicksQueue"], MaxNumberOfMessages=10)["Messages"]
    pack = ClickPack.from_message(message["Body"], message["MessageId"])
    assert pack.clicks == ()
    assert [(orphan.code, orphan.outcome, orphan.count) for orphan in pack.orphans] == [("nope123", "unknown", 1)]


def test_a_head_of_an_unknown_or_deleted_link_queues_no_orphan_visit(aws, handlers, api):
    key = aws.new_api_key()
    body = api.new_link(key, url=PAGE)
    deleted = handlers["ManageFunction"](http_event("DELETE", f"/links/{body['code']}", headers=bearer(key)), None)
    assert deleted["statusCode"] == 204
    # A link checker's HEAD: answered as a GET would be, never counted
    assert api.follow("nope123", method="HEAD").status == 404
    assert api.follow(body["code"], method="HEAD").status == 410
    assert aws.sqs.receive_message(QueueUrl=aws.queue_urls["ClicksQueue"]).get("Messages", []) == []


def test_a_redirect_reads_one_item_at_most_and_sends_one_message(api):
    # (Outside Lambda the click is sent inline; test_redirect_hot_path covers the extension.)
    body = api.new_link(url=PAGE)
    with recording_aws_calls() as calls:
        api.follow(body["code"])
    assert calls.counts() == {("dynamodb", "GetItem"): 1, ("sqs", "SendMessage"): 1}
    with recording_aws_calls() as calls:
        api.follow(body["code"])  # cached
        api.follow("unknown")
        api.follow("unknown")  # negatively cached
        api.follow("bad/code!")  # refused without a lookup
    # Inline, each follow sends its own pack: a click, or an orphan visit (the extension packs them)
    assert calls.counts() == {("dynamodb", "GetItem"): 1, ("sqs", "SendMessage"): 4}


def test_create_costs_a_key_and_a_claim_lookup_a_rate_count_and_a_put_plus_a_counter_update_per_block(aws, api):
    key = aws.new_api_key()
    with recording_aws_calls() as calls:
        for i in range(3):
            api.create(key, url=f"https://example.com/{i}")
    assert calls.counts() == {
        ("dynamodb", "GetItem"): 3 + 3,  # the API key; a slug's claim on the code's reading (none: no write)
        # one block of 1,000 ids; the key's rate window, each time; the key's first use of the day
        ("dynamodb", "UpdateItem"): 1 + 3 + 1,
        ("dynamodb", "PutItem"): 3 + 3,  # each link, then its audit entry
        ("sqs", "SendMessageBatch"): 3,  # each link.created event and its audit entry's, after the writes
    }


def test_without_a_rate_limit_create_skips_the_rate_count(aws, api, monkeypatch):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "0")
    services.reset()
    key = aws.new_api_key()
    with recording_aws_calls() as calls:
        for i in range(3):
            api.create(key, url=f"https://example.com/{i}")
    # UpdateItem: one block of ids, and the key's first use of the day
    assert calls.counts() == {
        ("dynamodb", "GetItem"): 6,
        ("dynamodb", "UpdateItem"): 2,
        ("dynamodb", "PutItem"): 3 + 3,  # each link, then its audit entry
        ("sqs", "SendMessageBatch"): 3,  # the link.created events and their audit entries' (webhooks)
    }
