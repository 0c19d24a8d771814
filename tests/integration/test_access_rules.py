"""Passwords, access rules and routes through the handlers against moto."""

import json
from urllib.parse import urlencode

import pytest

from shortlink import wiring as services
from tests.events import bearer, http_event
from tests.integration.link_requests import create, patch

# What CloudFront adds to each request it sends to the API (the behind_the_edge stack's secret).
EDGE_SECRET = "an-edge-secret-of-at-least-32-characters"
THROUGH_THE_EDGE = {"x-shortlink-edge-secret": EDGE_SECRET}
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"


def follow(handlers, code, method="GET", headers=None, form=None, source_ip="203.0.113.9", base64_body=False):
    body = urlencode(form) if form is not None else None
    event = http_event(
        method,
        f"/{code}",
        route="/{code}",
        path_parameters={"code": code},
        headers={**THROUGH_THE_EDGE, **(headers or {})},
        body=body,
        source_ip=source_ip,
        base64_body=base64_body,
    )
    if form is not None:
        event["headers"]["content-type"] = "application/x-www-form-urlencoded"
    return handlers["RedirectFunction"](event)


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


def test_a_password_link_shows_a_form_and_redirects_only_with_the_password(aws, handlers):
    key = aws.new_api_key()
    status, created = create(aws, handlers, key, password="open sesame", max_clicks=5)
    assert status == 201
    assert created["has_password"] is True
    assert "open sesame" not in json.dumps(created)
    stored = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": created["code"]}})["Item"]
    assert stored["password_hash"]["S"].startswith("pbkdf2_sha256$600000$")

    form = follow(handlers, created["code"])
    assert form["statusCode"] == 200
    assert form["headers"]["Content-Type"].startswith("text/html")
    assert form["headers"]["X-Frame-Options"] == "DENY"
    assert "<form method=post>" in form["body"]
    assert "type=password" in form["body"]

    wrong = follow(handlers, created["code"], "POST", form={"password": "open sesame!"})
    assert wrong["statusCode"] == 403
    assert "Wrong password" in wrong["body"]
    empty = follow(handlers, created["code"], "POST", form={"password": ""})
    assert empty["statusCode"] == 400
    assert queued_clicks(aws) == 0  # neither the form nor a refusal is a click

    right = follow(handlers, created["code"], "POST", form={"password": "open sesame"}, base64_body=True)
    assert right["statusCode"] == 303  # the browser GETs the destination: the password is not re-posted
    assert right["headers"]["Location"] == "https://example.com/landing"
    assert right["headers"]["Cache-Control"] == "no-store"
    assert queued_clicks(aws) == 1
    stored = aws.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": created["code"]}})["Item"]
    assert stored["clicks_used"] == {"N": "1"}  # only the unlocked follow took from max_clicks


def test_password_attempts_are_limited_per_link_and_client(aws, handlers, monkeypatch):
    monkeypatch.setenv("UNLOCK_ATTEMPTS_PER_WINDOW", "2")
    services.reset()
    _, created = create(aws, handlers, password="hunter22")
    code = created["code"]
    for _ in range(2):
        assert follow(handlers, code, "POST", form={"password": "guess"})["statusCode"] == 403
    throttled = follow(handlers, code, "POST", form={"password": "hunter22"})
    assert throttled["statusCode"] == 429  # even the right password waits: the limit comes first
    assert 1 <= int(throttled["headers"]["Retry-After"]) <= 900
    assert "Too many attempts" in throttled["body"]
    # Another client address has its own allowance.
    assert follow(handlers, code, "POST", form={"password": "hunter22"}, source_ip="198.51.100.1")["statusCode"] == 303


def test_oversized_forms_and_posts_to_plain_links_are_refused(aws, handlers):
    _, locked = create(aws, handlers, password="hunter22")
    assert follow(handlers, locked["code"], "POST", form={"password": "x" * 5000})["statusCode"] == 413
    _, plain = create(aws, handlers)
    refused = follow(handlers, plain["code"], "POST", form={"password": "x"})
    assert (refused["statusCode"], refused["headers"]["Allow"]) == (405, "GET, HEAD")


def test_access_rules_deny_with_a_403_page(aws, handlers, behind_the_edge):
    _, created = create(
        aws,
        handlers,
        rules={"deny": {"devices": ["bot"], "ips": ["198.51.100.0/24"]}, "allow": {"countries": ["DE", "AT"]}},
    )
    code = created["code"]
    german_phone = {"user-agent": IPHONE, "cloudfront-viewer-country": "DE"}
    assert follow(handlers, code, headers=german_phone)["statusCode"] == 302
    denied = follow(handlers, code, headers={**german_phone, "user-agent": "curl/8.5"})
    assert denied["statusCode"] == 403
    assert "not available" in denied["body"]
    assert follow(handlers, code, headers=german_phone, source_ip="198.51.100.77")["statusCode"] == 403
    assert follow(handlers, code, headers={**german_phone, "cloudfront-viewer-country": "FR"})["statusCode"] == 403
    assert queued_clicks(aws) == 1


def test_country_headers_are_ignored_without_the_edge(aws, handlers):
    # The template's default (EnableEdge=false).
    _, created = create(aws, handlers, rules={"allow": {"countries": ["DE"]}})
    spoofed = follow(handlers, created["code"], headers={"cloudfront-viewer-country": "DE"})
    assert spoofed["statusCode"] == 403  # the country is unknown (XX), which DE's allow list does not name


def test_routes_pick_the_destination_by_visitor(aws, handlers, behind_the_edge):
    rules = {
        "routes": [
            {"countries": ["FR"], "url": "https://example.fr/"},
            {"os": ["ios"], "devices": ["mobile", "tablet"], "url": "https://apps.apple.com/app/id1"},
            {"languages": ["de"], "url": "https://example.com/de"},
            {"split": [{"url": "https://a.example/", "weight": 1}, {"url": "https://b.example/", "weight": 1}]},
        ]
    }
    _, created = create(aws, handlers, rules=rules, redirect_type=307)
    code = created["code"]

    def location(**headers):
        answer = follow(handlers, code, headers=headers)
        assert answer["statusCode"] == 307
        assert answer["headers"]["Cache-Control"] == "no-store"
        return answer["headers"]["Location"]

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
def test_invalid_rules_are_a_422_naming_the_field_and_write_nothing(aws, handlers, rules, field):
    status, refused = create(aws, handlers, rules=rules)
    assert status == 422
    assert refused["message"].startswith(field)
    assert aws.item_count("LinksTable") == 0


def test_patch_sets_and_clears_password_rules_and_max_clicks(aws, handlers):
    key = aws.new_api_key()
    _, created = create(aws, handlers, key)
    code = created["code"]
    status, edited = patch(
        handlers, key, code, password="letmein1", max_clicks=2, rules={"deny": {"countries": ["XX"]}}
    )
    assert status == 200
    assert (edited["has_password"], edited["max_clicks"], edited["rules"]) == (True, 2, {"deny": {"countries": ["XX"]}})
    status, refused = patch(handlers, key, code, rules={"deny": {"countries": ["UK"]}})
    assert (status, refused["message"].split(":")[0]) == (422, "rules.deny.countries[0]")
    status, cleared = patch(handlers, key, code, password=None, max_clicks=None, rules=None)
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
