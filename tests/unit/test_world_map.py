"""The stats pages' world map: the pinned Natural Earth countries under their ISO alpha-2 codes,
shaded by their clicks."""

from shortlink.console.world_map import LEVELS, choropleth, countries


def test_the_map_holds_the_worlds_countries_under_the_codes_the_counters_keep():
    codes = {country["code"] for country in countries()}
    assert {"DE", "US", "BR", "JP", "AU", "ZA", "IN", "RU", "FJ"} <= codes
    assert "AQ" not in codes  # Antarctica is left out
    assert all(country["d"].startswith("M") and country["d"].endswith("z") for country in countries())


def test_each_country_is_shaded_by_its_clicks_against_the_most_clicked():
    top = [{"value": "DE", "clicks": 8}, {"value": "US", "clicks": 2}, {"value": "XX", "clicks": 50}]
    shaded = {country["code"]: country for country in choropleth(top) if country["code"]}
    # XX (unknown) is not on the map but sets the scale: the map shades what the table lists
    assert (shaded["DE"]["clicks"], shaded["DE"]["level"]) == (8, 1)
    assert shaded["FR"]["level"] == 0
    only_known = {country["code"]: country["level"] for country in choropleth(top[:2]) if country["code"]}
    assert (only_known["DE"], only_known["US"], only_known["FR"]) == (LEVELS, 1, 0)
