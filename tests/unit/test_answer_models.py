"""The stats models name every dimension and every orphan outcome the reports hold."""

from shortlink.api.stats_views import LinkOrphans, TopByDimension
from shortlink.clicks.events import DIMENSIONS
from shortlink.clicks.orphans import LINK_OUTCOMES


def test_the_top_values_model_has_a_field_per_dimension():
    assert tuple(TopByDimension.model_fields) == DIMENSIONS


def test_the_orphans_model_has_a_field_per_link_outcome():
    assert tuple(LinkOrphans.model_fields) == LINK_OUTCOMES
