"""Passwords, access rules and routes through the handlers against moto."""

import json

import pytest

from shortlink import wiring as services
from tests.api_client import ApiClient, through_handlers
from tests.events import bearer, http_event

# What CloudFront adds to each request it sends to the API (the behind_the_edge stack's secret).
EDGE_SECRET = "an-edge-secret-of-at-least-32-characters"
THROUGH_THE_EDGE = {"x-shortlink-edge-secret": EDGE_SECRET}
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"


@pytest.fixture
def api(aws, handlers):
    """The link API through the handlers, its visitors coming through the edge: each request
    carries the edge's secret, as CloudFront adds it (believed only `behind_the_edge`)."""
    return ApiClient(through_handlers(handlers), aws.new_api_key, visitor_headers=THROUGH_THE_EDGE)


@pytest.fixture
def behind_the_edge(monkeypatch):
    """As deployed with EnableEdge=true: CloudFront's viewer headers are believed on requests
    with the edge's secret (which `follow` sends, as CloudFront would)."""
    monkeypatch.setenv("EDGE_SECRET", EDGE_SECRET)
    services.reset()


def queued_clicks(aws):
    attributes = aws.sqs.get_queue_attributes(
        QueueUrl=aws.queue_urls["ClicksQueue"], AttributeNames=["ApproximateNumberOfMessages"]
    )
    return int(attributes["Attributes"]["ApproximateNumberOfMessages"])


def test_a_password_link_shows_a_form_and_redirects_only_with_the_password(aws, handlers, api):
    key = aws.new_api_key()
    status, created = api.create(key, password="open sesame", max_clicks=5).status_and_json()
    assert status == 201
    assert created["has_password"] is True
    assert "open sesame" not in json.dumps(created)
    stored = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": created["code"]}})["Item"]
    assert stored["password_hash"]["S"].startswith("pbkdf2_sha256$600000$")

    form = api.follow(created["code"])
    assert form.status == 200
    assert form.headers["content-type"].startswith("text/html")
    assert form.headers["x-frame-options"] == "DENY"
    assert f'<form method=post action="/unlock/{created["code"]}">' in form.text
    assert "type=password" in form.text

    wrong = api.follow(created["code"], "POST", form={"password": "open sesame!"})
    assert wrong.status == 403
    assert "Wrong password" in wrong.text
    empty = api.follow(created["code"], "POST", form={"password": ""})
    assert empty.status == 400
    assert queued_clicks(aws) == 0  # neither the form nor a refusal is a click

    right = api.follow(created["code"], "POST", form={"password": "open sesame"}, base64_body=True)
    assert right.status == 303  # the browser GETs the destination: the password is not re-posted
    assert right.headers["location"] == "https://example.com/landing"
    assert right.headers["cache-control"] == "no-store"
    assert queued_clicks(aws) == 1
    stored = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": created["code"]}})["Item"]
    assert stored["clicks_used"] == {"N": "1"}  # only the unlocked follow took from max_clicks


def test_password_attempts_are_limited_per_link_and_client(aws, handlers, monkeypatch, api):
    monkeypatch.setenv("UNLOCK_ATTEMPTS_PER_WINDOW", "2")
    services.reset()
    created = api.new_link(password="hunter22")
    code = created["code"]
    for _ in range(2):
        assert api.follow(code, "POST", form={"password": "guess"}).status == 403
    throttled = api.follow(code, "POST", form={"password": "hunter22"})
    assert throttled.status == 429  # even the right password waits: the limit comes first
    assert 1 <= int(throttled.headers["retry-after"]) <= 900
    assert "Too many attempts" in throttled.text
    # Another client address has its own allowance.
    assert api.follow(code, "POST", form={"password": "hunter22"}, source_ip="198.51.100.1").status == 303


def test_oversized_forms_and_posts_to_plain_links_are_refused(aws, handlers, api):
    locked = api.new_link(password="hunter22")
    assert api.follow(locked["code"], "POST", form={"password": "x" * 5000}).status == 413
    plain = api.new_link()
    refused = api.follow(plain["code"], "POST", form={"password": "x"})
    assert (refused.status, refused.headers["allow"]) == (405, "GET, HEAD")


def test_access_rules_deny_with_a_403_page(aws, handlers, behind_the_edge, api):
    created = api.new_link(
        rules={"deny": {"devices": ["bot"], "ips": ["198.51.100.0/24"]}, "allow": {"countries": ["DE", "AT"]}}
    )
    code = created["code"]
    german_phone = {"user-agent": IPHONE, "cloudfront-viewer-country": "DE"}
    assert api.follow(code, headers=german_phone).status == 302
    denied = api.follow(code, headers={**german_phone, "user-agent": "curl/8.5"})
    assert denied.status == 403
    assert "not available" in denied.text
    assert api.follow(code, headers=german_phone, source_ip="198.51.100.77").status == 403
    assert api.follow(code, headers={**german_phone, "cloudfront-viewer-country": "FR"}).status == 403
    assert queued_clicks(aws) == 1


def test_country_headers_are_ignored_without_the_edge(aws, handlers, api):
    # The template's default (EnableEdge=false).
    created = api.new_link(rules={"allow": {"countries": ["DE"]}})
    spoofed = api.follow(created["code"], headers={"cloudfront-viewer-country": "DE"})
    assert spoofed.status == 403  # the country is unknown (XX), which DE's allow list does not name


def test_routes_pick_the_destination_by_visitor(aws, handlers, behind_the_edge, api):
    rules = {
        "routes": [
            {"countries": ["FR"], "url": "https://example.fr/"},
            {"os": ["ios"], "devices": ["mobile", "tablet"], "url": "https://apps.apple.com/app/id1"},
            {"languages": ["de"], "url": "https://example.com/de"},
            {"split": [{"url": "https://a.example/", "weight": 1}, {"url": "https://b.example/", "weight": 1}]},
        ]
    }
    created = api.new_link(rules=rules, redirect_type=307)
    code = created["code"]

    def location(**headers):
        answer = api.follow(code, headers=headers)
        assert answer.status == 307
        assert answer.headers["cache-control"] == "no-store"
        return answer.headers["location"]

    assert location(**{"cloudfront-viewer-country": "FR", "user-agent": IPHONE}) == "https://example.fr/"
    assert location(**{"user-agent": IPHONE}) == "https://apps.apple.com/app/id1"
    assert location(**{"accept-language": "en;q=0.5, de-AT"}) == "https://example.com/de"
    variant = location(**{"accept-language": "en", "user-agent": "Mozilla/5.0 (Windows NT 10.0) Firefox/126.0"})
    assert variant in ("https://a.example/", "https://b.example/")
    again = location(**{"accept-language": "en", "user-agent": "Mozilla/5.0 (Windows NT 10.0) Firefox/126.0"})
    assert again == variant  # sticky


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ({"allow": {"countries": ["Germany"]}}, "rules.allow.countries[0]"),
        ({"deny": {"ips": ["10.0.0.0/33"]}}, "rules.deny.ips[0]"),
        (
            {
                "routes": [
                    {"split": [{"url": "https://a.example", "weight": -1}, {"url": "https://b.example", "weight": 1}]}
                ]
            },
            "rules.routes[0].split[0].weight",
        ),
        ({"routes": [{"time": {"from": "9am", "to": "5pm"}, "url": "https://a.example"}]}, "rules.routes[0].time.from"),
        ({"routes": [{"url": "https://user:pw@a.example"}]}, "rules.routes[0].url"),
    ],
)
def test_invalid_rules_are_a_422_naming_the_field_and_write_nothing(aws, handlers, rules, field, api):
    status, refused = api.create(rules=rules).status_and_json()
    assert status == 422
    assert refused["message"].startswith(field)
    assert aws.item_count("LinksTable") == 0


def test_patch_sets_and_clears_password_rules_and_max_clicks(aws, handlers, api):
    key = aws.new_api_key()
    created = api.new_link(key)
    code = created["code"]
    status, edited = api.patch(
        code, key, password="letmein1", max_clicks=2, rules={"deny": {"countries": ["XX"]}}
    ).status_and_json()
    assert status == 200
    assert (edited["has_password"], edited["max_clicks"], edited["rules"]) == (True, 2, {"deny": {"countries": ["XX"]}})
    status, refused = api.patch(code, key, rules={"deny": {"countries": ["UK"]}}).status_and_json()
    assert (status, refused["message"].split(":")[0]) == (422, "rules.deny.countries[0]")
    status, cleared = api.patch(code, key, password=None, max_clicks=None, rules=None).status_and_json()
    assert status == 200
    assert (cleared["has_password"], cleared["max_clicks"], cleared["rules"]) == (False, None, None)
    item = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": code}})["Item"]
    assert not {"password_hash", "max_clicks", "rules"} & set(item)


def test_bulk_creates_hash_at_most_five_passwords(aws, handlers, monkeypatch):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "0")
    services.reset()
    links = [{"url": f"https://example.com/{i}", "password": "secret-1"} for i in range(6)]
    event = http_event("POST", "/links/bulk", headers=bearer(aws.new_api_key()), body={"links": links})
    answer = json.loads(handlers["CreateFunction"](event)["body"])
    assert [result["status"] for result in answer["results"]] == [201] * 5 + [422]
    assert "at most 5" in answer["results"][5]["message"]
