from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.links.previews import LinkPreview
from shortlink.redirect.responses import cache_control, plain_redirect
from shortlink.rules.parsing import parse_rules

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
LINK = Link("abc", "https://example.com/a", "owner", NOW)


@pytest.mark.parametrize(
    ("status", "expected"),
    [(302, "no-store"), (307, "no-store"), (301, "public, max-age=3600"), (308, "public, max-age=3600")],
)
def test_a_plain_link_is_answered_with_a_response_made_once(status, expected):
    assert plain_redirect(replace(LINK, redirect_type=status)) == (
        "https://example.com/a",
        {
            "statusCode": status,
            "headers": {"Location": "https://example.com/a", "Cache-Control": expected, "X-Robots-Tag": "noindex"},
            "body": "",
        },
        {},  # no other front's shape yet
    )


def test_a_crawlable_link_is_not_marked_noindex_and_utm_fields_are_in_the_ready_made_location():
    link = replace(LINK, crawlable=True, utm=Utm(source="news", campaign="spring"))
    # The destination (the click's campaign is read from it) is the Location
    assert plain_redirect(link) == (
        "https://example.com/a?utm_source=news&utm_campaign=spring",
        {
            "statusCode": 302,
            "headers": {
                "Location": "https://example.com/a?utm_source=news&utm_campaign=spring",
                "Cache-Control": "no-store",
            },
            "body": "",
        },
        {},
    )


@pytest.mark.parametrize(
    "change",
    [
        {"valid_from": NOW},
        {"expires_at": NOW + timedelta(days=1)},
        {"deleted_at": NOW},
        {"max_clicks": 3},
        {"password_hash": "pbkdf2_sha256$600000$salt$hash"},
        {"rules": parse_rules({"deny": {"devices": ["bot"]}})},
        {"preview": LinkPreview(title="a card for bots")},
    ],
)
def test_a_link_whose_answer_depends_on_the_request_or_the_time_is_not_plain(change):
    assert plain_redirect(replace(LINK, **change)) is None
    assert plain_redirect(None) is None


def test_a_permanent_redirect_is_cached_no_longer_than_the_link_lives():
    expiring = replace(LINK, redirect_type=301, expires_at=NOW + timedelta(minutes=10))
    assert cache_control(expiring, 301, NOW) == "public, max-age=600"
    assert cache_control(expiring, 301, NOW + timedelta(hours=1)) == "public, max-age=0"
