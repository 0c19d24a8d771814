"""Link options end to end through the handlers against moto: custom slugs, private codes,
validity windows and redirect types."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from shortlink import wiring as services
from shortlink.adapters.dynamodb.click_budget import DynamoClickBudget
from shortlink.adapters.dynamodb.link_store import SLUG_CLAIM_PREFIX, DynamoLinkRepository
from shortlink.links.model import Link
from shortlink.links.slugs import RESERVED_SLUGS
from shortlink.wiring import resources
from tests.aws_calls import recording_aws_calls
from tests.integration.conftest import ROOT
from tools.developers.devstack.template import LocalTemplate

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest


def test_a_custom_slug_is_the_short_code_and_look_alikes_are_taken(aws, handlers, api):
    status, created = api.create(slug="Spring-Sale", title="Spring sale", tags=["promo", "q2"]).status_and_json()
    assert status == 201
    assert created["code"] == "Spring-Sale"
    assert created["short_url"] == "https://sho.rt/Spring-Sale"
    assert (created["title"], created["tags"]) == ("Spring sale", ["promo", "q2"])
    assert api.follow("Spring-Sale").status == 302

    for look_alike in ("spring-sale", "SPR1NG-SALE", "Spring-Sa1e"):
        status, refused = api.create(slug=look_alike).status_and_json()
        assert status == 409, look_alike
        assert refused["error"] == "slug_taken"
    # One link and its one claim: the refused creates wrote nothing.
    assert aws.item_count("LinksTable") == 2


def test_a_slug_equal_to_an_existing_generated_code_is_taken(aws, handlers, api):
    generated = api.new_link()
    status, refused = api.create(slug=generated["code"]).status_and_json()
    assert status == 409
    assert refused["error"] == "slug_taken"


def test_a_slug_that_reads_as_an_existing_generated_code_is_taken(aws, handlers, api):
    # Item 14: KgsUc4V generated, then kgsuc4v, KGSUC4V or a look-alike spelling as a slug.
    generated = api.new_link()
    code = generated["code"]
    for look_alike in (code.lower(), code.upper(), code.swapcase()):
        if look_alike == code:
            continue
        status, refused = api.create(slug=look_alike).status_and_json()
        assert (status, refused["error"]) == (409, "slug_taken"), look_alike
    assert aws.item_count("LinksTable") == 1


def test_a_generated_code_never_reads_as_a_slug(aws, handlers, monkeypatch, api):
    # Given a slug that reads as the next code the counter will give
    from shortlink import wiring as services

    first = services.code_generator().next_code()
    services.reset()
    status, _ = api.create(slug=first.swapcase()).status_and_json()
    assert status == 201
    # When a link gets a generated code, it is not that one
    status, created = api.create().status_and_json()
    assert status == 201
    assert created["code"].lower() != first.lower()


def test_a_slug_of_too_many_look_alike_spellings_is_refused(aws, handlers, api):
    status, refused = api.create(slug="illicit").status_and_json()  # 12,500 spellings of 7 characters
    assert (status, refused["error"]) == (422, "invalid_request")
    assert "slug 'illicit' reads like 12500 possible generated codes" in refused["message"]
    assert api.create(slug="il-licit").status == 201  # not a code's shape


@pytest.mark.parametrize(
    ("fields", "mentions"),
    [
        ({"slug": "admin"}, "slug 'admin' is reserved"),
        ({"slug": "L1NKS"}, "reserved"),
        ({"slug": "a/b"}, "slug must be 1-64 characters"),
        ({"slug": "x" * 65}, "slug:"),
        ({"redirect_type": 303}, "redirect_type"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, "expires_at must be in the future"),
        ({"valid_from": "2030-01-02T00:00:00Z", "expires_at": "2030-01-01T00:00:00Z"}, "after valid_from"),
        ({"valid_from": "2030-01-01T00:00:00"}, "valid_from: must carry a time zone"),
        ({"expires_at": "next tuesday"}, "expires_at"),
        ({"tags": ["ok", "not ok"]}, "tags.1"),
        ({"tags": [f"t{i}" for i in range(11)]}, "tags"),
        ({"title": "t" * 201}, "title"),
        ({"slug": "mine", "private": True}, "private"),
        ({"max_clicks": 0}, "max_clicks"),
        ({"expires_at": "9000-12-31T00:00:00Z"}, "expires_at must be within 100 years"),
        ({"valid_from": "9000-12-31T00:00:00Z"}, "valid_from must be within 100 years"),
        ({"max_clicks": "many"}, "max_clicks"),
    ],
)
def test_bad_options_are_refused_naming_the_field_and_write_nothing(aws, handlers, fields, mentions, api):
    status, refused = api.create(**fields).status_and_json()
    assert status == 422
    assert mentions in refused["message"]
    assert aws.item_count("LinksTable") == 0


def test_a_private_link_has_a_capability_code(aws, handlers, api):
    status, created = api.create(private=True).status_and_json()
    assert status == 201
    assert len(created["code"]) == 22
    assert created["private"] is True
    assert api.follow(created["code"]).status == 302


@pytest.mark.parametrize("redirect_type", [301, 302, 307, 308])
def test_the_redirect_answers_with_the_chosen_status(aws, handlers, redirect_type, api):
    created = api.new_link(redirect_type=redirect_type)
    response = api.follow(created["code"])
    assert response.status == redirect_type
    assert response.headers["location"] == "https://example.com/landing"
    permanent = redirect_type in (301, 308)
    assert response.headers["cache-control"] == ("public, max-age=3600" if permanent else "no-store")


def test_a_permanent_redirect_is_never_cached_past_the_links_expiry(aws, handlers, api):
    expires = datetime.now(UTC) + timedelta(minutes=10)
    created = api.new_link(redirect_type=301, expires_at=expires.isoformat())
    max_age = int(api.follow(created["code"]).headers["cache-control"].split("=")[1])
    assert 590 <= max_age <= 600


def test_before_valid_from_a_link_is_unknown_and_after_expiry_it_is_gone(aws, handlers, api):
    now = datetime.now(UTC)
    repository = DynamoLinkRepository(resources().links_table.value)
    repository.add(Link("notyet", "https://e.com/a", "o", now, valid_from=now + timedelta(hours=1)))
    repository.add(Link("expired", "https://e.com/b", "o", now - timedelta(days=2), expires_at=now - timedelta(days=1)))
    repository.add(
        Link(
            "current",
            "https://e.com/c",
            "o",
            now,
            valid_from=now - timedelta(hours=1),
            expires_at=now + timedelta(hours=1),
        )
    )
    assert api.follow("notyet").status == 404
    gone = api.follow("expired")
    assert gone.status == 410
    assert "expired" in gone.text
    assert api.follow("current").status == 302
    # Expired links leave with DynamoDB's TTL, 30 days after their expiry.
    item = aws.dynamodb.get_item(TableName=resources().links_table.value, Key={"code": {"S": "expired"}})["Item"]
    assert int(item["expires_at_epoch"]["N"]) == int((now - timedelta(days=1) + timedelta(days=30)).timestamp())


def test_a_slug_claim_can_never_be_followed(aws, handlers, api):
    api.create(slug="claimed")
    assert api.follow(SLUG_CLAIM_PREFIX + "clalmed").status == 404


def test_every_first_path_segment_of_the_api_is_reserved():
    routes = LocalTemplate.load(ROOT / "template.yaml").api().routes
    segments = {route.path.strip("/").split("/")[0] for route in routes}
    assert segments - {"{code}", ""} <= RESERVED_SLUGS  # "": the root, GET /


@pytest.mark.parametrize(
    ("url", "mentions"),
    [
        ("https://sho.rt/abc", "redirect loop"),  # the public base URL of the fixture
        ("https://www.phish.example/login", "blocklist"),
        ("https://phìsh.example/", "blocklist"),  # compared in punycode: xn--phsh-rpa.example
    ],
)
def test_destinations_the_operator_refuses(aws, handlers, monkeypatch, url, mentions, api):
    monkeypatch.setenv("BLOCKED_DOMAINS", "phish.example, xn--phsh-rpa.example")
    services.reset()
    status, refused = api.create(url=url).status_and_json()
    assert (status, refused["error"]) == (422, "invalid_url")
    assert mentions in refused["message"]
    assert aws.item_count("LinksTable") == 0


def test_random_mode_creates_without_the_counter(aws, handlers, monkeypatch, api):
    monkeypatch.setenv("CODE_MODE", "random")
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "0")  # the counters table stays empty
    services.reset()
    key = aws.new_api_key()
    with recording_aws_calls() as calls:
        created = [api.new_link(key=key, url=f"https://example.com/{i}")["code"] for i in range(20)]
    assert len(set(created)) == 20
    assert all(len(code) == 7 for code in created)
    # Per create: the API key, and the claim a slug reading like the code would hold; the key's
    # first use of the day, once; each link.created event (webhooks).
    assert calls.counts() == {
        ("dynamodb", "GetItem"): 40,
        ("dynamodb", "PutItem"): 20 + 20,  # each link, then its audit entry
        ("dynamodb", "UpdateItem"): 1,
        ("sqs", "SendMessageBatch"): 20,  # with its audit entry's event
    }
    assert aws.item_count("CountersTable") == 0
    assert api.follow(created[0]).status == 302


def test_a_key_over_its_create_rate_gets_429_with_retry_after(aws, handlers, monkeypatch, api):
    monkeypatch.setenv("CREATE_RATE_LIMIT_PER_MINUTE", "3")
    services.reset()
    key = aws.new_api_key()
    if time.time() % 60 > 55:  # keep the four creates inside one window
        time.sleep(60 - time.time() % 60 + 0.1)
    statuses = []
    for i in range(4):
        response = api.create(key, url=f"https://example.com/{i}")
        statuses.append(response.status)
    assert statuses == [201, 201, 201, 429]
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert response.json()["error"] == "rate_limited"
    assert aws.item_count("LinksTable") == 3
    # Another key has its own allowance.
    assert api.create().status == 201


def test_max_clicks_lets_exactly_that_many_visitors_through(aws, handlers, api):
    created = api.new_link(max_clicks=3)
    assert created["max_clicks"] == 3
    statuses = [api.follow(created["code"]).status for _ in range(5)]
    assert statuses == [302, 302, 302, 410, 410]
    assert "used up" in api.follow(created["code"]).text
    # Each follow, cached or not, makes its one conditional update before the response (and,
    # outside Lambda, sends its orphan visit inline: the extension packs them).
    with recording_aws_calls() as calls:
        api.follow(created["code"])
    assert calls.counts() == {("dynamodb", "UpdateItem"): 1, ("sqs", "SendMessage"): 1}


@pytest.fixture
def atomic_item_writes(monkeypatch):
    """DynamoDB applies each conditional write to an item atomically; moto's in-memory backend
    checks and writes in separate steps that threads can interleave. Make moto keep the
    service's guarantee, so that the test checks our use of it."""
    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.Lock()
    original = DynamoDBBackend.update_item

    def update_item(self, *args, **kwargs):
        with lock:
            return original(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "update_item", update_item)


def test_max_clicks_holds_under_concurrent_follows(aws, handlers, atomic_item_writes, api):
    created = api.new_link(max_clicks=50)
    budget = DynamoClickBudget(resources().links_table.value)

    def follower(_: int) -> int:
        return sum(budget.take(created["code"]) for _ in range(25))

    with ThreadPoolExecutor(8) as pool:
        allowed = sum(pool.map(follower, range(8)))
    assert allowed == 50
    item = aws.dynamodb.get_item(TableName=resources().links_table.value, Key={"code": {"S": created["code"]}})["Item"]
    assert item["clicks_used"] == {"N": "50"}


def test_links_without_max_clicks_are_never_counted_by_the_budget(aws, handlers, api):
    created = api.new_link()
    assert DynamoClickBudget(resources().links_table.value).take(created["code"]) is False
    with recording_aws_calls() as calls:
        api.follow(created["code"])
        api.follow(created["code"])
    assert ("dynamodb", "UpdateItem") not in calls.counts()
