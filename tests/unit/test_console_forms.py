"""The console's link form read into the API's options (shortlink.console.forms)."""

from datetime import UTC, datetime

import pytest

from shortlink.console.forms import FormErrors, field_of, form_of_link, link_changes, link_options, rules_document
from shortlink.links.destinations import Utm


def form(**fields: str) -> dict[str, list[str]]:
    return {name: [text] for name, text in fields.items()}


def test_every_option_of_the_form_becomes_the_apis_option():
    url, options = link_options(
        form(
            url="https://example.com/spring",
            slug="spring-sale",
            title="Spring sale",
            tags="spring, sale newsletter",
            expires_at="2027-01-01T10:00:00.000Z",
            max_clicks="500",
            password="open-sesame",
            redirect_type="307",
            allow_countries="DE AT",
            deny_devices="bot",
            route_0_countries="FR",
            route_0_url="https://example.fr",
            variant_0_url="https://a.example",
            variant_0_weight="70",
            variant_1_url="https://b.example",
            variant_1_weight="30",
            variant_2_url="",
            variant_2_weight="",
        )
    )
    assert url == "https://example.com/spring"
    assert options.slug == "spring-sale"
    assert options.tags == ("spring", "sale", "newsletter")
    assert options.expires_at == datetime(2027, 1, 1, 10, tzinfo=UTC)
    assert (options.max_clicks, options.password, options.redirect_type) == (500, "open-sesame", 307)
    assert options.rules == {
        "allow": {"countries": ["DE", "AT"]},
        "deny": {"devices": ["bot"]},
        "routes": [
            {"url": "https://example.fr", "countries": ["FR"]},
            {"split": [{"url": "https://a.example", "weight": 70}, {"url": "https://b.example", "weight": 30}]},
        ],
    }


def test_a_picker_value_without_the_scripts_utc_moment_is_read_as_utc():
    _, options = link_options(form(url="https://example.com", valid_from_local="2027-02-03T04:05"))
    assert options.valid_from == datetime(2027, 2, 3, 4, 5, tzinfo=UTC)


def test_each_bad_field_gets_the_apis_message_at_that_field():
    with pytest.raises(FormErrors) as raised:
        link_options(form(url="https://example.com", title="t" * 201, tags="ok bad!tag", max_clicks="0"))
    errors = raised.value.errors
    assert set(errors) == {"title", "tags", "max_clicks"}
    assert errors["title"] == "title: String should have at most 200 characters"
    assert errors["tags"].startswith("tags.1: String should match pattern")
    assert errors["max_clicks"] == "max_clicks: Input should be greater than or equal to 1"


def test_a_missing_destination_is_named():
    with pytest.raises(FormErrors) as raised:
        link_options(form(title="no url"))
    assert raised.value.errors == {"url": "url: field required"}


@pytest.mark.parametrize(
    ("api_field", "form_field"),
    [
        ("expires_at", "expires_at"),
        ("rules.allow.countries[0]", "allow_countries"),
        ("rules.deny.ips", "deny_ips"),
        ("rules.routes[1].split[0].weight", "routes"),
        ("rules", "rules"),
        ("utm.source", "utm_source"),
        ("utm", "utm"),
        ("preview.image", "preview_image"),
        ("crawlable", "crawlable"),
    ],
)
def test_a_domain_error_goes_to_the_field_it_names(api_field, form_field):
    assert field_of(api_field) == form_field


def test_an_edit_form_round_trips_a_link_and_removes_what_was_emptied():
    view = {
        "url": "https://example.com",
        "title": "Old",
        "tags": ["a", "b"],
        "redirect_type": 302,
        "max_clicks": 10,
        "valid_from": None,
        "expires_at": "2027-01-01T00:00:00Z",
        "rules": {
            "allow": {"countries": ["DE"]},
            "routes": [
                {"url": "https://example.de", "languages": ["de"], "time": {"from": "09:00", "to": "17:00"}},
                {"split": [{"url": "https://a.example", "weight": 1}, {"url": "https://b.example", "weight": 3}]},
            ],
        },
        "forward_query": False,
        "expired_url": "https://example.com/ended",
        "crawlable": True,
        "preview": {"title": "Card"},
        "utm": {"source": "news", "campaign": "spring"},
    }
    fields = form_of_link(view)
    assert rules_document(fields) == view["rules"]
    fields.update(form(title="", max_clicks="", expires_at="", preview_title="", crawlable=""))
    changes = link_changes(fields)
    assert changes.cleared == frozenset({"title", "max_clicks", "expires_at", "valid_from", "preview"})
    assert changes.tags == ("a", "b")
    assert changes.rules == view["rules"]
    assert (changes.forward_query, changes.crawlable) == (False, False)
    assert changes.expired_url == "https://example.com/ended"
    assert changes.utm == Utm(source="news", campaign="spring")


def test_the_destination_options_of_the_form_become_the_apis_and_a_bad_one_is_named_at_its_field():
    _, options = link_options(
        form(url="https://example.com", drop_query="on", crawlable="on", utm_medium="email", preview_image="")
    )
    assert (options.forward_query, options.crawlable, options.utm, options.preview) == (
        False,
        True,
        Utm(medium="email"),
        None,
    )
    _, untouched = link_options(form(url="https://example.com"))  # a bulk line: the API's defaults
    assert (untouched.forward_query, untouched.crawlable, untouched.expired_url) == (True, False, None)
    with pytest.raises(FormErrors) as raised:
        link_options(form(url="https://example.com", utm_term="t" * 201, preview_description="d" * 501))
    assert set(raised.value.errors) == {"utm_term", "preview_description"}
