"""Custom slugs: shape, reserved paths, and look-alike folding."""

import pytest

from shortlink.errors import InvalidLinkOption
from shortlink.links.slugs import RESERVED_SLUGS, slug_key, validate_slug


@pytest.mark.parametrize("slug", ["promo", "Spring-Sale_2026", "a", "x" * 64])
def test_well_formed_slugs_are_accepted_as_typed(slug):
    assert validate_slug(slug) == slug


@pytest.mark.parametrize("slug", ["", "x" * 65, "a/b", "a b", "ü", "promo.html", "~slug~x"])
def test_malformed_slugs_are_refused_naming_the_field(slug):
    with pytest.raises(InvalidLinkOption) as refused:
        validate_slug(slug)
    assert refused.value.field == "slug"


@pytest.mark.parametrize("slug", ["links", "LINKS", "L1nks", "admin", "Adm1n", "health", "docs", "api", "l0g0ut"])
def test_reserved_paths_are_refused_in_any_case_or_look_alike(slug):
    with pytest.raises(InvalidLinkOption, match="reserved"):
        validate_slug(slug)


def test_reserved_paths_include_what_the_issue_lists():
    assert {"links", "api", "admin", "login", "logout", "static", "assets", "docs", "health"} <= RESERVED_SLUGS
    assert {"openapi.json", "robots.txt", "favicon.ico", ".well-known"} <= RESERVED_SLUGS


@pytest.mark.parametrize(
    ("one", "other"),
    [("Promo", "promo"), ("pr0mo", "PROMO"), ("bill", "BI1L"), ("I1l", "lll"), ("O0o", "ooo")],
)
def test_look_alikes_share_a_key(one, other):
    assert slug_key(one) == slug_key(other)


@pytest.mark.parametrize(("one", "other"), [("promo", "promos"), ("a-b", "a_b"), ("abc", "abd")])
def test_different_slugs_keep_different_keys(one, other):
    assert slug_key(one) != slug_key(other)
