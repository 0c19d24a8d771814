"""The domains' settings document: checked field by field when read."""

import json

import pytest

from shortlink.domains.model import ShortDomains
from shortlink.domains.settings import parse_domain_settings, settings_of
from shortlink.errors import ConfigurationError

DOMAINS = ShortDomains.parse("sho.rt,go.example")


def test_each_domain_gets_its_own_settings_and_star_the_others():
    parsed = parse_domain_settings(
        json.dumps(
            {
                "go.example": {"root_url": "https://example.com/", "assetlinks": []},
                "*": {"not_found_url": "https://example.com/404"},
            }
        ),
        DOMAINS,
    )
    assert settings_of(parsed, "go.example").root_url == "https://example.com/"
    assert settings_of(parsed, "go.example").app_files == {"assetlinks": "[]"}
    assert settings_of(parsed, "sho.rt").not_found_url == "https://example.com/404"
    assert parse_domain_settings("", DOMAINS) == {}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "must be a JSON object keyed by domain"),
        ({"other.example": {}}, "other.example: not one of this stack's domains"),
        ({"sho.rt": {"root": "https://example.com/"}}, "sho.rt.root: unknown field"),
        ({"sho.rt": {"root_url": "ftp://example.com/"}}, "sho.rt.root_url: url must be an absolute http or https URL"),
        ({"sho.rt": {"not_found_url": "https://go.example/x"}}, "sho.rt.not_found_url:"),  # a loop
        ({"sho.rt": {"root_url": 7}}, "sho.rt.root_url: must be a string"),
        ({"sho.rt": {"assetlinks": {}}}, "sho.rt.assetlinks: must be a JSON array"),
        ({"sho.rt": {"apple_app_site_association": []}}, "sho.rt.apple_app_site_association: must be a JSON object"),
    ],
)
def test_a_wrong_field_is_named(document, message):
    with pytest.raises(ConfigurationError, match="^domain settings: " + message.replace(".", r"\.")):
        parse_domain_settings(json.dumps(document), DOMAINS)
