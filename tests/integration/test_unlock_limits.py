"""What bounds guessing a link's password, against moto through the redirect: an IPv6 client is
its /64, a link has a ceiling over all clients, and the window slides (attempt logs written
conditionally in the counters table)."""

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest

from shortlink import wiring as services
from shortlink.access.rate_limits import (
    LINK_ATTEMPTS_PER_WINDOW,
    UNLOCK_WINDOW_SECONDS,
    take_unlock_attempt,
)
from shortlink.errors import RateLimited
from shortlink.wiring import resources
from tests.events import http_event
from tests.integration.test_edge_trust import EDGE_SECRET, edge_on

__all__ = ["edge_on"]  # a fixture used by name


def guess(
    handlers,
    code: str,
    viewer: str,
    password: str = "wrong",  # noqa: S107 - a guess
    query: dict[str, str] | None = None,
    form_path: bool = False,
) -> int:
    """A password attempt through the edge from `viewer` (CloudFront-Viewer-Address's form), to
    the link's own address or (`form_path`) to the one its form posts to."""
    return int(unlock_answer(handlers, code, viewer, password, query, form_path)["statusCode"])


def unlock_answer(
    handlers, code: str, viewer: str, password: str, query: dict[str, str] | None = None, form_path: bool = False
) -> dict[str, Any]:
    event = http_event(
        "POST",
        f"/unlock/{code}" if form_path else f"/{code}",
        query=query,
        route="/unlock/{code}" if form_path else "/{code}",
        path_parameters={"code": code},
        headers={"x-shortlink-edge-secret": EDGE_SECRET, "cloudfront-viewer-address": f"{viewer}:50000"},
        body=urlencode({"password": password}),
        source_ip="130.176.1.1",  # CloudFront's
    )
    event["headers"]["content-type"] = "application/x-www-form-urlencoded"
    answer: dict[str, Any] = handlers["RedirectFunction"](event)
    return answer


def test_the_form_posts_to_its_own_path_which_unlocks_under_the_same_allowance(aws, handlers, api, edge_on):
    # Given a password link, its form names /unlock/<code> on the same host
    code = api.new_link(password="the-right-one")["code"]
    page = handlers["RedirectFunction"](http_event("GET", f"/{code}", route="/{code}", path_parameters={"code": code}))
    assert f'<form method=post action="/unlock/{code}">' in page["body"]
    # When wrong guesses go to both addresses, they share one allowance
    wrong = unlock_answer(handlers, code, "198.51.100.8", "wrong", form_path=True)
    assert (wrong["statusCode"], f'action="/unlock/{code}"' in wrong["body"]) == (403, True)
    assert [guess(handlers, code, "198.51.100.8", form_path=n % 2 == 0) for n in range(9)] == [403] * 9
    assert guess(handlers, code, "198.51.100.8", "the-right-one", form_path=True) == 429
    # And the right password at the form's path goes to the destination from another address
    unlocked = unlock_answer(handlers, code, "198.51.100.9", "the-right-one", form_path=True)
    assert (unlocked["statusCode"], unlocked["headers"]["Location"]) == (303, "https://example.com/landing")


def test_addresses_of_one_ipv6_64_share_one_allowance(aws, handlers, api, edge_on):
    code = api.new_link(password="the-right-one")["code"]
    # Three addresses of one /64 get 10 wrong guesses between them, not 10 each
    statuses = [guess(handlers, code, f"2001:db8:aa:bb::{n % 3 + 1}") for n in range(10)]
    assert statuses == [403] * 10
    assert guess(handlers, code, "2001:db8:aa:bb:ffff::4", "the-right-one") == 429
    # Another /64 (another line) has its own
    assert guess(handlers, code, "2001:db8:aa:bc::1", "the-right-one") == 303


def test_a_query_that_makes_the_address_too_long_spends_no_attempt(aws, handlers, api, edge_on):
    code = api.new_link(password="the-right-one")["code"]
    too_long = {"q": "a" * 2100}
    # Given more posts with an over-long forwarded query than the allowance holds
    statuses = [guess(handlers, code, "198.51.100.7", query=too_long) for _ in range(12)]
    # Then each answers 414 and no attempt log was written
    assert statuses == [414] * 12
    items = boto3.client("dynamodb").scan(TableName=resources().counters_table.value)["Items"]
    assert [item["name"]["S"] for item in items if item["name"]["S"].startswith("unlock#")] == []
    # And the client's whole allowance is still there: ten wrong guesses, then the right one in time
    assert [guess(handlers, code, "198.51.100.7") for _ in range(9)] == [403] * 9
    assert guess(handlers, code, "198.51.100.7", "the-right-one") == 303


@pytest.mark.slow
def test_a_links_ceiling_holds_over_many_addresses(aws, handlers, api, edge_on, monkeypatch):
    monkeypatch.setenv("UNLOCK_ATTEMPTS_PER_WINDOW", "1000")  # only the ceiling limits here
    services.reset()
    code = api.new_link(password="the-right-one")["code"]
    other = api.new_link(password="the-right-one")["code"]
    statuses = [guess(handlers, code, f"198.51.100.{n}") for n in range(LINK_ATTEMPTS_PER_WINDOW)]
    assert statuses == [403] * LINK_ATTEMPTS_PER_WINDOW
    assert guess(handlers, code, "203.0.113.200", "the-right-one") == 429
    assert guess(handlers, other, "203.0.113.200", "the-right-one") == 303  # another link's own


@pytest.mark.usefixtures("aws")
def test_the_window_slides_in_the_counters_table():
    log = services.window_counter()
    start = datetime(2026, 12, 1, 9, 14, tzinfo=UTC)  # a minute before a quarter hour ends
    for second in range(10):
        take_unlock_attempt("slide", "203.0.113.9", 10, start + timedelta(seconds=second), log)
    after_boundary = start + timedelta(minutes=2)
    with pytest.raises(RateLimited) as refused:
        take_unlock_attempt("slide", "203.0.113.9", 10, after_boundary, log)
    assert refused.value.retry_after == UNLOCK_WINDOW_SECONDS - 120
    take_unlock_attempt("slide", "203.0.113.9", 10, start + timedelta(seconds=UNLOCK_WINDOW_SECONDS + 1), log)
    # The address is kept only as a hash
    items = boto3.client("dynamodb").scan(TableName=resources().counters_table.value)["Items"]
    assert items
    assert "203.0.113.9" not in str(items)
