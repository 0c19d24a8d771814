"""Issue 16 items 1, 3, 4, 5, 7 through the handlers against moto: query forwarding, UTM fields,
the fallback page, crawler control and social preview cards, from create and PATCH to the
redirect."""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.clicks.events import ClickPack
from shortlink.links.model import Link
from shortlink.redirect.robots import TTL_SECONDS
from shortlink.wiring import resources
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest
SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


def robots(handlers) -> dict[str, Any]:
    answer: dict[str, Any] = handlers["RedirectFunction"](http_event("GET", "/robots.txt"))
    return answer


def test_every_option_is_shown_as_saved_and_patch_sets_and_clears_them(aws, handlers, api):
    key = aws.new_api_key()
    status, created = api.create(
        key,
        forward_query=False,
        expired_url="HTTPS://Example.com/ended",
        crawlable=True,
        preview={"title": "Launch", "image": "https://example.com/card.png"},
        utm={"source": "news", "campaign": "spring"},
    ).status_and_json()
    assert status == 201, created
    assert (created["forward_query"], created["crawlable"]) == (False, True)
    assert created["expired_url"] == "https://example.com/ended"
    assert created["preview"] == {"title": "Launch", "image": "https://example.com/card.png"}
    assert created["utm"] == {"source": "news", "campaign": "spring"}
    code = created["code"]
    status, edited = api.patch(
        code, key, forward_query=True, crawlable=False, utm={"medium": "email"}
    ).status_and_json()
    assert status == 200, edited
    assert (edited["forward_query"], edited["crawlable"], edited["utm"]) == (True, False, {"medium": "email"})
    status, cleared = api.patch(code, key, expired_url=None, preview=None, utm=None).status_and_json()
    assert status == 200, cleared
    assert (cleared["expired_url"], cleared["preview"], cleared["utm"]) == (None, None, None)
    read = handlers["ManageFunction"](http_event("GET", f"/links/{code}", headers=bearer(key)), None)
    assert json.loads(read["body"]) == cleared


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"forward_query": "yes"}, "forward_query"),
        ({"crawlable": 1}, "crawlable"),
        ({"crawlable": True, "private": True}, "crawlable"),
        ({"expired_url": "ftp://example.com/"}, "expired_url"),
        ({"expired_url": ""}, "expired_url"),
        ({"preview": {"title": "x" * 201}}, "preview.title"),
        ({"preview": {"image": "https://localhost/i.png"}}, "preview.image"),
        ({"preview": {"colour": "red"}}, "preview.colour"),
        ({"preview": {}}, "preview"),
        ({"utm": {"source": ""}}, "utm.source"),
        ({"utm": {}}, "utm"),
        ({"url": "https://example.com/?utm_campaign=a", "utm": {"campaign": "b"}}, "utm.campaign"),
    ],
)
def test_bad_values_are_refused_with_422_naming_the_field_on_create_and_patch(aws, handlers, fields, named, api):
    key = aws.new_api_key()
    status, refused = api.create(key, **fields).status_and_json()
    assert status == 422, refused
    assert refused["message"].startswith(named), refused
    assert aws.item_count("LinksTable") == 0
    # The same edit of a link (a private one stays private: `private` is not editable)
    private = fields.pop("private", False)
    link = api.new_link(key, private=private)
    status, refused = api.patch(link["code"], key, **fields).status_and_json()
    assert status == 422, refused
    assert named in refused["message"], refused


def test_a_visitors_query_is_merged_in_and_the_links_own_values_win(aws, handlers, api):
    created = api.new_link(url="https://example.com/shop?lang=en#top", utm={"source": "news"})
    code = created["code"]
    # A plain follow: the link's UTM fields are in its ready-made response
    assert api.follow(code).headers["location"] == "https://example.com/shop?lang=en&utm_source=news#top"
    assert services.cached_links().lookup(code).prepared is not None
    # A follow with a query, on the cached link: the visitor's parameters, with no AWS call
    with recording_aws_calls() as calls:
        answer = api.follow(code, query="ref=tw&lang=de&utm_source=x&q=a%20b")
        assert calls.counts() == {("sqs", "SendMessage"): 1}  # the click, sent inline outside Lambda
    assert answer.headers["location"] == "https://example.com/shop?lang=en&utm_source=news&ref=tw&q=a+b#top"
    # The next plain follow is answered as before
    assert api.follow(code).headers["location"] == "https://example.com/shop?lang=en&utm_source=news#top"


def test_forward_query_false_keeps_the_visitors_parameters_out(aws, handlers, api):
    created = api.new_link(forward_query=False, utm={"campaign": "c"})
    answer = api.follow(created["code"], query="ref=tw")
    assert answer.headers["location"] == "https://example.com/landing?utm_campaign=c"


def test_a_query_that_makes_the_destination_too_long_is_a_414_page(aws, handlers, api):
    created = api.new_link()
    answer = api.follow(created["code"], query="q=" + "a" * 2100)
    assert answer.status == 414
    assert answer.headers["content-type"].startswith("text/html")


def test_links_are_listed_by_campaign(aws, handlers, api):
    key = aws.new_api_key()
    spring = api.new_link(key, utm={"campaign": "spring"}, tags=["a"])
    api.create(key, utm={"campaign": "autumn"})
    api.create(key)
    listed = handlers["ManageFunction"](
        http_event("GET", "/links", headers=bearer(key), query={"utm_campaign": "spring"}), None
    )
    assert [link["code"] for link in json.loads(listed["body"])["links"]] == [spring["code"]]
    both = handlers["ManageFunction"](
        http_event("GET", "/links", headers=bearer(key), query={"utm_campaign": "spring", "tag": "b"}), None
    )
    assert json.loads(both["body"])["links"] == []


def orphans(aws) -> list[tuple[str, str]]:
    messages = aws.sqs.receive_message(QueueUrl=aws.queue_urls["ClicksQueue"], MaxNumberOfMessages=10)["Messages"]
    packs = [ClickPack.from_message(message["Body"], message["MessageId"]) for message in messages]
    return sorted((orphan.code, orphan.outcome) for pack in packs for orphan in pack.orphans)


def test_an_expired_used_up_or_deleted_link_redirects_to_its_fallback_and_the_visit_stays_counted(aws, handlers, api):
    key = aws.new_api_key()
    fallback = "https://example.com/ended"
    used_up = api.new_link(key, max_clicks=1, expired_url=fallback)
    deleted = api.new_link(key, expired_url=fallback)
    now = datetime.now(UTC)
    expired = Link("expired", "https://e.com/b", "o", now - timedelta(days=2), expires_at=now, expired_url=fallback)
    DynamoLinkRepository(resources().links_table.value).add(expired)
    assert api.follow(used_up["code"]).headers["location"] == "https://example.com/landing"
    handlers["ManageFunction"](http_event("DELETE", f"/links/{deleted['code']}", headers=bearer(key)), None)
    aws.sqs.purge_queue(QueueUrl=aws.queue_urls["ClicksQueue"])
    for code in (used_up["code"], deleted["code"], "expired"):
        answer = api.follow(code, query="ref=tw")  # the visitor's query does not go to the fallback
        assert (answer.status, answer.headers["location"]) == (302, fallback), code
        assert answer.headers["cache-control"] == "no-store"
    assert orphans(aws) == sorted([(used_up["code"], "used_up"), (deleted["code"], "deleted"), ("expired", "expired")])


def test_redirects_are_noindex_unless_crawlable_and_robots_txt_allows_only_crawlable_links(
    aws, handlers, monkeypatch, api
):
    key = aws.new_api_key()
    hidden = api.new_link(key)
    shown = api.new_link(key, crawlable=True)
    assert api.follow(hidden["code"]).headers["x-robots-tag"] == "noindex"
    assert "x-robots-tag" not in api.follow(shown["code"]).headers
    clock = [1000.0]
    monkeypatch.setattr("shortlink.wiring.redirect.time.monotonic", lambda: clock[0])
    services.cached_robots.cache_clear()
    with recording_aws_calls() as calls:
        first = robots(handlers)
        again = robots(handlers)
        assert calls.counts() == {("dynamodb", "Query"): 1}  # one bounded read per TTL, never a scan
    assert (first["statusCode"], first["headers"]["Content-Type"]) == (200, "text/plain; charset=utf-8")
    assert first["body"] == again["body"] == f"User-agent: *\nAllow: /{shown['code']}$\nDisallow: /\n"
    # No longer crawlable: gone from robots.txt once the text is rebuilt
    api.patch(shown["code"], key, crawlable=False)
    clock[0] += TTL_SECONDS
    assert robots(handlers)["body"] == "User-agent: *\nDisallow: /\n"


def test_robots_txt_lists_a_crawlable_link_only_while_it_is_not_deleted(aws, handlers, monkeypatch, api):
    key = aws.new_api_key()
    shown = api.new_link(key, crawlable=True)
    plain = api.new_link(key)
    code = shown["code"]
    listed = f"User-agent: *\nAllow: /{code}$\nDisallow: /\n"
    nothing = "User-agent: *\nDisallow: /\n"
    clock = [1000.0]
    monkeypatch.setattr("shortlink.wiring.redirect.time.monotonic", lambda: clock[0])
    services.cached_robots.cache_clear()

    def robots_after_the_ttl() -> str:
        clock[0] += TTL_SECONDS
        return str(robots(handlers)["body"])

    def writes(calls: Any) -> int:  # the link's (the key's lookup and the change event aside)
        return int(calls.counts().get(("dynamodb", "UpdateItem"), 0))

    def manage(method: str, path: str) -> int:
        answer = handlers["ManageFunction"](http_event(method, path, headers=bearer(key)), None)
        return int(answer["statusCode"])

    assert robots_after_the_ttl() == listed
    # Deleted: out of robots.txt in the delete's one write
    with recording_aws_calls() as calls:
        assert manage("DELETE", f"/links/{code}") == 204
        assert writes(calls) == 1
    assert robots_after_the_ttl() == nothing
    # An edit while deleted keeps it out, crawlable or not
    status, edited = api.patch(code, key, crawlable=True, title="still deleted").status_and_json()
    assert (status, edited["crawlable"]) == (200, True)
    assert robots_after_the_ttl() == nothing
    # Restored: back in, by a second write that only a crawlable link's restore makes
    with recording_aws_calls() as calls:
        assert manage("POST", f"/links/{code}/restore") == 200
        assert writes(calls) == 2
    assert robots_after_the_ttl() == listed
    with recording_aws_calls() as calls:
        assert manage("DELETE", f"/links/{plain['code']}") == 204
        assert manage("POST", f"/links/{plain['code']}/restore") == 200
        assert writes(calls) == 2
    assert robots_after_the_ttl() == listed


def test_link_preview_bots_get_the_card_and_people_the_redirect(aws, handlers, api):
    created = api.new_link(
        preview={"title": "We <launched>", "description": 'Say "hi"', "image": "https://example.com/c.png"}
    )
    code = created["code"]
    card = api.follow(code, query="ref=slack", headers={"user-agent": SLACK})
    assert card.status == 200
    assert card.headers["content-type"] == "text/html; charset=utf-8"
    assert card.headers["x-robots-tag"] == "noindex"
    assert '<meta property="og:title" content="We &lt;launched&gt;">' in card.text
    assert '<meta name="twitter:description" content="Say &quot;hi&quot;">' in card.text
    assert "https://example.com/landing?ref=slack" in card.text
    person = api.follow(code, query="", headers={"user-agent": FIREFOX})
    assert (person.status, person.headers["location"]) == (302, "https://example.com/landing")


def test_stats_break_clicks_down_by_the_campaign_in_effect_on_each_destination(aws, handlers, api):
    from tests.integration.test_flow import drain_clicks, stats_response

    key = aws.new_api_key()
    spring = api.new_link(key, utm={"source": "news", "campaign": "spring"})
    forwarding = api.new_link(key)
    closed = api.new_link(key, forward_query=False)
    api.follow(spring["code"], query="utm_campaign=visitor")  # the link's own campaign wins
    for _ in range(2):  # the second is a cache hit: its ready-made response names the campaign
        api.follow(spring["code"])
    api.follow(forwarding["code"], query="utm_source=mail&utm_campaign=black+friday")
    api.follow(forwarding["code"])
    api.follow(closed["code"], query="utm_campaign=newsletter")  # not forwarded: not in effect
    while drain_clicks(aws, handlers):
        pass

    def campaigns(code: str) -> dict[str, int]:
        answer = stats_response(handlers, key, code)
        assert answer["statusCode"] == 200, answer["body"]
        return {top["value"]: top["clicks"] for top in json.loads(answer["body"])["top"]["campaign"]}

    assert campaigns(spring["code"]) == {"spring": 3}
    assert campaigns(forwarding["code"]) == {"black friday": 1, "(none)": 1}
    assert campaigns(closed["code"]) == {"(none)": 1}
    csv = stats_response(handlers, key, spring["code"], format="csv", dimension="campaign")
    assert csv["headers"]["Content-Disposition"] == f'attachment; filename="{spring["code"]}-campaign.csv"'
    assert csv["body"].splitlines() == ["campaign,clicks", "spring,3"]
    refused = stats_response(handlers, key, spring["code"], dimension="campaign")
    assert refused["statusCode"] == 422
    assert "dimension" in refused["body"]
    unknown = stats_response(handlers, key, spring["code"], format="csv", dimension="weather")
    assert unknown["statusCode"] == 422
    assert "dimension" in unknown["body"]
